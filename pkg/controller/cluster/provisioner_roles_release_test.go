package cluster

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// applyRoles applies spec.managed.roles as manager would, one role per
// name, with setpoint's marker when marked, and returns the stored object.
func applyRoles(t *testing.T, cs *fake.Clientset, manager string, marked bool, names ...string) *cnpgv1.Cluster {
	t.Helper()
	var roles []map[string]any
	for _, n := range names {
		r := map[string]any{"name": n, "ensure": "present", "login": true}
		if marked {
			r["comment"] = ownership.PostgresMarker("ns", "app")
		}
		roles = append(roles, r)
	}
	body, err := json.Marshal(map[string]any{"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
		"metadata": map[string]any{"name": "shop", "namespace": "ns"},
		"spec":     map[string]any{"managed": map[string]any{"roles": roles}}})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := cs.CNPGV1().Clusters("ns").Patch(t.Context(), "shop", types.ApplyPatchType, body,
		metav1.PatchOptions{FieldManager: manager, Force: ptr.To(true)})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// cached is cl as the informer holds it: without managedFields.
func cached(cl *cnpgv1.Cluster) *cnpgv1.Cluster {
	c := cl.DeepCopy()
	c.ManagedFields = nil
	return c
}

func releasePass(cs *fake.Clientset, cl *cnpgv1.Cluster) (*pass, *record.FakeRecorder) {
	rec := record.NewFakeRecorder(4)
	p := testPass()
	p.deps = &deps{pg: cs, recorder: rec}
	p.provisioner.cnpg = cl
	return p, rec
}

func patches(cs *fake.Clientset) []clienttesting.PatchAction {
	var out []clienttesting.PatchAction
	for _, a := range cs.Actions() {
		if pa, ok := a.(clienttesting.PatchAction); ok {
			out = append(out, pa)
		}
	}
	return out
}

func rolesOf(t *testing.T, cs *fake.Clientset) []string {
	t.Helper()
	cl, err := cs.CNPGV1().Clusters("ns").Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if cl.Spec.Managed != nil {
		for _, r := range cl.Spec.Managed.Roles {
			out = append(out, r.Name)
		}
	}
	return out
}

// releaseRolesApply is the apply of rolesFieldManager that releases the
// roles of the previous setpoint: managed.roles empty, and nothing else.
const releaseRolesApply = `{"apiVersion":"postgresql.cnpg.io/v1","kind":"Cluster","metadata":{"name":"shop","namespace":"ns"},"spec":{"managed":{"roles":[]}}}`

// A cluster of the previous setpoint: its roles leave managed.roles in
// one apply of rolesFieldManager, announced; the next pass writes nothing.
func TestReleaseManagedRolesOnceThenNothing(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset(&cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", UID: "uid-cnpg"}})
	old := applyRoles(t, cs, rolesFieldManager, true, "orders_admin", "orders_rw")
	cs.ClearActions()

	p, rec := releasePass(cs, cached(old))
	if err := releaseManagedRoles(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	ps := patches(cs)
	if len(ps) != 1 || ps[0].GetPatchType() != types.ApplyPatchType {
		t.Fatalf("writes = %v, want one apply", cs.Actions())
	}
	if d := ct.Sends(releaseRolesApply)(ps[0]); d != "" {
		t.Fatalf("apply: %s", d)
	}
	if got := rolesOf(t, cs); len(got) != 0 {
		t.Fatalf("roles left = %v", got)
	}
	if p.provisioner.cnpg == nil || p.provisioner.cnpg.Spec.Managed == nil || len(p.provisioner.cnpg.Spec.Managed.Roles) != 0 {
		t.Fatalf("pass kept %+v, want the applied object", p.provisioner.cnpg)
	}
	if ev := <-rec.Events; !strings.Contains(ev, "ReleasedManagedRoles") || !strings.Contains(ev, "2 role(s)") {
		t.Fatalf("event = %q", ev)
	}

	// Converged, from the cache as from the API: no read, no write.
	for _, cl := range []*cnpgv1.Cluster{cached(p.provisioner.cnpg), p.provisioner.cnpg} {
		cs.ClearActions()
		p, _ = releasePass(cs, cl)
		if err := releaseManagedRoles(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		if len(cs.Actions()) != 0 {
			t.Fatalf("converged cluster: %v", cs.Actions())
		}
	}
}

// A list rolesFieldManager does not own is the user's: without setpoint's
// marker nothing is even read; with it (a list someone took over) it is
// read and left as it is.
func TestReleaseManagedRolesLeavesOthersLists(t *testing.T) {
	t.Parallel()
	for _, marked := range []bool{false, true} {
		t.Run(fmt.Sprintf("marked=%v", marked), func(t *testing.T) {
			cs := fake.NewClientset(&cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", UID: "uid-cnpg"}})
			applyRoles(t, cs, rolesFieldManager, true, "orders_admin")
			user := applyRoles(t, cs, "kubectl", marked, "orders_admin", "reporting")
			cs.ClearActions()
			p, _ := releasePass(cs, cached(user))
			if err := releaseManagedRoles(t.Context(), p); err != nil {
				t.Fatal(err)
			}
			if ps := patches(cs); len(ps) != 0 {
				t.Fatalf("wrote a list it does not own: %v", ps)
			}
			if n := len(cs.Actions()); n != map[bool]int{false: 0, true: 1}[marked] {
				t.Fatalf("actions = %v", cs.Actions())
			}
			if got := rolesOf(t, cs); len(got) != 2 {
				t.Fatalf("roles = %v", got)
			}
		})
	}
}

// The decision reads the list's owner from managedFields.
func TestOwnsManagedRoles(t *testing.T) {
	t.Parallel()
	roles := &cnpgv1.ManagedConfiguration{Roles: []cnpgv1.RoleConfiguration{{Name: "orders_admin"}}}
	entry := func(manager, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationApply,
			FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
	}
	owned := `{"f:spec":{"f:managed":{"f:roles":{}}}}`
	for _, tc := range []struct {
		name    string
		managed *cnpgv1.ManagedConfiguration
		entries []metav1.ManagedFieldsEntry
		want    bool
	}{
		{"ours, with entries", roles, []metav1.ManagedFieldsEntry{entry(fieldManager, `{"f:spec":{"f:instances":{}}}`), entry(rolesFieldManager, owned)}, true},
		{"ours, emptied", &cnpgv1.ManagedConfiguration{}, []metav1.ManagedFieldsEntry{entry(rolesFieldManager, owned)}, false},
		{"someone else's", roles, []metav1.ManagedFieldsEntry{entry("kubectl", owned)}, false},
		{"ours, other fields only", roles, []metav1.ManagedFieldsEntry{entry(rolesFieldManager, `{"f:spec":{"f:managed":{}}}`)}, false},
		{"no managed section", nil, []metav1.ManagedFieldsEntry{entry(rolesFieldManager, owned)}, false},
	} {
		cl := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{ManagedFields: tc.entries}, Spec: cnpgv1.ClusterSpec{Managed: tc.managed}}
		if got := ownsManagedRoles(cl); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The provisioner releases the roles of a CNPG Cluster it otherwise leaves
// as it is: an upgrade changes nothing else.
func TestProvisionerReleasesManagedRoles(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	p := provisionerPass(t, cs, pgv1.ClusterSettings{})
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	old := applyRoles(t, cs, rolesFieldManager, true, "orders_admin")
	cs.ClearActions()
	p = provisionerPass(t, cs, pgv1.ClusterSettings{})
	p.deps.recorder = record.NewFakeRecorder(4)
	p.obs.cnpg = cached(old)
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	ps := patches(cs)
	if len(ps) != 1 {
		t.Fatalf("writes = %v, want the release alone", cs.Actions())
	}
	if d := ct.Sends(releaseRolesApply)(ps[0]); d != "" {
		t.Fatalf("release: %s", d)
	}
	if got := rolesOf(t, cs); len(got) != 0 {
		t.Fatalf("roles left = %v", got)
	}
}

// The condition of the removed managedRoles component leaves the status.
func TestDropRolesCondition(t *testing.T) {
	t.Parallel()
	st := &pgv1.PostgresClusterStatus{Conditions: []metav1.Condition{
		{Type: pgv1.ConditionProvisionerReady, Status: metav1.ConditionTrue}, {Type: pgv1.ConditionManagedRolesReady, Status: metav1.ConditionTrue}}}
	dropRolesCondition(st)
	if len(st.Conditions) != 1 || st.Conditions[0].Type != pgv1.ConditionProvisionerReady {
		t.Fatalf("conditions = %+v", st.Conditions)
	}
}
