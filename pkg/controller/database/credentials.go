package database

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// roleCredential is one role of a database and where its password lives.
type roleCredential struct {
	// kind is what a rotation request may name: admin, rw, ro, or an
	// extra role's name within the database.
	kind      string
	role      string
	generated string // the Secret setpoint generates; "" for a role without login
	external  string // the user's Secret from passwordConfig, if any
	// extra is the role's entry of spec.roles when it is not a fixed
	// role: its login, memberships and connection limit.
	extra *pgv1.DatabaseRoleSpec
}

// credentialsOf are the roles database d asks for, admin and rw first,
// then ro (readOnlyRole), then the extra roles of spec.roles in spec
// order: the one list of a database's roles every step goes by. An extra
// role without login has no Secret.
func credentialsOf(d pgv1.DatabaseSpec, n names) []roleCredential {
	out := []roleCredential{
		{kind: "admin", role: n.AdminRole, generated: n.AdminSecret, external: externalAdmin(d)},
		{kind: "rw", role: n.RWRole, generated: n.RWSecret, external: externalRW(d)},
	}
	if d.ReadOnlyRole {
		out = append(out, roleCredential{kind: "ro", role: n.RORole, generated: n.ROSecret, external: externalRO(d)})
	}
	for i, r := range d.Roles {
		if isFixedRole(r.Name) {
			continue
		}
		c := roleCredential{kind: r.Name, role: n.Role(r.Name), extra: &d.Roles[i]}
		if loginOf(r) {
			c.generated = n.Secret(r.Name)
		}
		out = append(out, c)
	}
	return out
}

// isFixedRole: an entry of spec.roles named so gives grants to a fixed
// role rather than declaring a role.
func isFixedRole(name string) bool { return name == "rw" || name == "ro" }

// loginOf: the extra role r may log in (login defaults to false: a role
// declared without it is a group).
func loginOf(r pgv1.DatabaseRoleSpec) bool { return r.Login != nil && *r.Login }

func externalRO(d pgv1.DatabaseSpec) string {
	if d.PasswordConfig != nil && d.PasswordConfig.ROSecretRef != nil {
		return d.PasswordConfig.ROSecretRef.Name
	}
	return ""
}

// databaseCredentials ensures the Secrets of one database's roles, carries
// out a rotation request on the generated ones, and lists the roles in
// the database's status entry. What it returns not Ready is the database's
// problem (the step reports it).
func (p *pass) databaseCredentials(ctx context.Context, d pgv1.DatabaseSpec) health {
	n := namesOf(p.db, d.Name)
	creds := credentialsOf(d, n)
	refs := make([]string, len(creds))
	var hs []health
	for i, c := range creds {
		if c.generated == "" && c.external == "" {
			continue // a role without login: no password
		}
		h := p.credential(ctx, c.role, c.generated, c.external, &refs[i])
		if h.Phase == pgv1.PhaseReady {
			h = p.afterValidation(ctx, d, c)
		}
		hs = append(hs, h)
	}
	if h := worst(hs); h.Phase != pgv1.PhaseReady {
		// Keep the previous entry: withdrawing a role over a passing
		// problem would churn its DatabaseRole.
		return h
	}
	e := p.entry(d.Name)
	previous := e.Roles
	e.AdminSecretRef = &pgv1.LocalObjectReference{Name: refs[0]}
	e.RWSecretRef = &pgv1.LocalObjectReference{Name: refs[1]}
	e.ROSecretRef = nil
	if d.ReadOnlyRole {
		e.ROSecretRef = &pgv1.LocalObjectReference{Name: refs[2]}
	}
	e.Roles = nil
	for i, c := range creds {
		r := presentRole(e, c.role, refs[i])
		if c.generated != "" && c.external == "" {
			r.LastRotation = credentials.RotationOf(p.obs.secrets[c.generated])
		}
		e.Roles = append(e.Roles, r)
	}
	// Roles the spec no longer declares, as deletionPolicy says.
	kept, h := p.removeExtraRoles(ctx, d, n, previous)
	e.Roles = append(e.Roles, kept...)
	if d.ReadOnlyRole {
		return h
	}
	keptRO, hRO := p.removeReadOnly(ctx, d, n, previous)
	e.Roles = append(e.Roles, keptRO...)
	return worst([]health{h, hRO})
}

// afterValidation is what a valid credential may still need: a rotation
// of a generated password, or the reload label on a user's Secret.
func (p *pass) afterValidation(ctx context.Context, d pgv1.DatabaseSpec, c roleCredential) health {
	request := credentials.RotationRequest(p.db)
	if c.external != "" {
		if request != "" && rotationSelects(p.db, c) {
			p.rotation.external = append(p.rotation.external, fmt.Sprintf("%s (Secret %q)", c.role, c.external))
		}
		if d.PasswordConfig != nil && d.PasswordConfig.ReloadOnChange {
			return p.labelForReload(ctx, c.external)
		}
		return ready("", "")
	}
	if request == "" || !rotationSelects(p.db, c) {
		return ready("", "")
	}
	p.rotation.selected++
	s, rotated, err := credentials.EnsureRotated(ctx, p.deps.kube.CoreV1().Secrets(p.db.Namespace), p.obs.secrets[c.generated], request, fieldManager, p.deps.clock.Now())
	if err != nil {
		return apiError(pgv1.ReasonPasswordRotationFailed, err)
	}
	p.obs.secrets[c.generated] = s
	p.rotation.done++
	if !rotated {
		return ready("", "")
	}
	p.rotation.rotated = append(p.rotation.rotated, c.role)
	// Who asked is in the request; the password is never logged.
	klog.FromContext(ctx).Info("Rotated password", "secret", klog.KObj(s), "role", c.role, "request", request)
	return p.rebindRotated(ctx, d, c)
}

// labelForReload puts cnpg.io/reload on a user's Secret, with the
// user's consent (passwordConfig.reloadOnChange): CloudNativePG then
// applies a password changed there at once. Nothing else is written.
func (p *pass) labelForReload(ctx context.Context, name string) health {
	s := p.obs.external[name]
	if s.Labels[ownership.ReloadLabel] == "true" {
		return ready("", "")
	}
	// The resourceVersion read: consent was given for the Secret observed,
	// so one replaced since is refused by conflict, never labelled blind.
	patch := fmt.Appendf(nil, `{"metadata":{"resourceVersion":%q,"labels":{%q:"true"}}}`, s.ResourceVersion, ownership.ReloadLabel)
	out, err := p.deps.kube.CoreV1().Secrets(p.db.Namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return apiError(pgv1.ReasonReloadLabelFailed, fmt.Errorf("label external Secret %s for reload: %w", name, err))
	}
	p.obs.external[name] = out
	return ready("", "")
}
