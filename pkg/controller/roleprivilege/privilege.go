package roleprivilege

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	cnpgclient "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/typed/cnpg/v1"
)

// Unprivileged sets every privilege-bearing attribute of s to what a role
// of setpoint's has: nothing. inRoles is not among them: an apply
// configuration cannot send an empty list, so the caller sets the
// memberships a role needs, and Scrub removes any of a role that needs
// none.
func Unprivileged(s *cnpgac.DatabaseRoleSpecApplyConfiguration) *cnpgac.DatabaseRoleSpecApplyConfiguration {
	return s.WithSuperuser(false).WithCreateDB(false).WithCreateRole(false).
		WithReplication(false).WithBypassRLS(false).WithInherit(true).WithConnectionLimit(-1)
}

// Drift names the privilege-bearing fields of cur that differ from an
// unprivileged role that is a member of inRoles alone, in a fixed order;
// none when cur is as setpoint wants it. An omitted inherit or connection
// limit is CNPG's default (true, -1).
func Drift(cur *cnpgv1.DatabaseRole, inRoles []string) []string {
	return DriftLimited(cur, inRoles, -1)
}

// DriftLimited is Drift for a role whose declared connection limit is
// limit (-1: none), as a database's extra roles declare one.
func DriftLimited(cur *cnpgv1.DatabaseRole, inRoles []string, limit int64) []string {
	s := cur.Spec
	var out []string
	for _, f := range []struct {
		name  string
		drift bool
	}{
		{"superuser", s.Superuser},
		{"createdb", s.CreateDB},
		{"createrole", s.CreateRole},
		{"replication", s.Replication},
		{"bypassrls", s.BypassRLS},
		{"inherit", !ptr.Deref(s.Inherit, true)},
		{"inRoles", !slices.Equal(s.InRoles, inRoles) && len(s.InRoles)+len(inRoles) > 0},
		{"connectionLimit", ptr.Deref(s.ConnectionLimit, -1) != limit},
		{"validUntil", s.ValidUntil != nil},
	} {
		if f.drift {
			out = append(out, f.name)
		}
	}
	return out
}

// ScrubPatch is the JSON patch that removes what a server-side apply of
// ours cannot: a validUntil, and memberships of a role that should have
// none. Its tests make it apply only to the object judged (the same UID
// and resourceVersion), so a concurrent edit is judged again, never
// overwritten unseen. nil when the apply alone restores the role.
func ScrubPatch(cur *cnpgv1.DatabaseRole, inRoles []string) ([]byte, error) {
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value,omitempty"`
	}
	var ops []op
	if cur.Spec.ValidUntil != nil {
		ops = append(ops, op{Op: "remove", Path: "/spec/validUntil"})
	}
	if len(inRoles) == 0 && len(cur.Spec.InRoles) > 0 {
		ops = append(ops, op{Op: "remove", Path: "/spec/inRoles"})
	}
	if len(ops) == 0 {
		return nil, nil
	}
	guard := []op{{Op: "test", Path: "/metadata/uid", Value: string(cur.UID)},
		{Op: "test", Path: "/metadata/resourceVersion", Value: cur.ResourceVersion}}
	b, err := json.Marshal(append(guard, ops...))
	if err != nil {
		return nil, fmt.Errorf("encode the patch of DatabaseRole %s: %w", cur.Name, err)
	}
	return b, nil
}

// Scrub patches applied — the object as our apply returned it — with
// ScrubPatch, when there is anything to remove.
func Scrub(ctx context.Context, client cnpgclient.DatabaseRoleInterface, applied *cnpgv1.DatabaseRole, inRoles []string, fieldManager string) error {
	patch, err := ScrubPatch(applied, inRoles)
	if err != nil || patch == nil {
		return err
	}
	if _, err := client.Patch(ctx, applied.Name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: fieldManager}); err != nil {
		return fmt.Errorf("remove privileges from DatabaseRole %s: %w", applied.Name, err)
	}
	return nil
}
