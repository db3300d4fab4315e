package cluster

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/roleprivilege"
)

// The monitor's DatabaseRole, given superuser, another membership and a
// validUntil by someone else, is set back: a forced apply of our fields,
// a guarded patch for the expiry, and one Warning Event naming them. The
// certificate group, given createrole, likewise.
func TestClusterRolesEditedByHandAreReverted(t *testing.T) {
	t.Parallel()
	p0 := testPass()
	sec := newMonitorSecret(p0)
	sec.ResourceVersion = "42"
	monitor := appliedBy(currentMonitorRole(p0), sec)
	monitor.UID, monitor.ResourceVersion = "uid-monitor", "7"
	monitor.Spec.Superuser = true
	monitor.Spec.InRoles = []string{"pg_monitor", "pg_execute_server_program"}
	until := metav1.Now()
	monitor.Spec.ValidUntil = &until
	group := certGroupAsApplied(p0)
	group.UID = "uid-group"
	group.Spec.CreateRole = true

	p, _, cs := monitorPass(t, []runtime.Object{sec}, monitor, group)
	rec := record.NewFakeRecorder(10)
	p.deps.recorder = rec
	p.obs.monitorSecret, p.obs.monitorRole, p.obs.certGroup = sec, monitor, group
	if monitorRoleCurrent(monitor, p) || certGroupCurrent(group, p) {
		t.Fatal("a role with privileges counts as current")
	}
	if h := runMonitor(p); h.Err != nil || p.monitor.certGroupErr != nil {
		t.Fatalf("pass: %+v, certificate group: %v", h, p.monitor.certGroupErr)
	}
	for _, obj := range []string{monitor.Name, group.Name} {
		got, err := cs.CNPGV1().DatabaseRoles("ns").Get(t.Context(), obj, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string(nil)
		if obj == monitor.Name {
			want = []string{monitorGroup}
		}
		if d := roleprivilege.Drift(got, want); len(d) != 0 {
			t.Errorf("%s still has %v: %+v", obj, d, got.Spec)
		}
	}
	// Whole: the roles as they were before the edits.
	wantMonitor := appliedBy(storedMonitorRole(), sec)
	wantMonitor.UID = "uid-monitor"
	wantGroup := storedCertAuthRole()
	wantGroup.UID, wantGroup.Status = "uid-group", group.Status
	for _, want := range []*cnpgv1.DatabaseRole{wantMonitor, wantGroup} {
		got, err := cs.CNPGV1().DatabaseRoles("ns").Get(t.Context(), want.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := ct.Diff(want, got); d != "" {
			t.Errorf("%s as stored: %s", want.Name, d)
		}
	}
	var events []string
	for len(rec.Events) > 0 {
		events = append(events, <-rec.Events)
	}
	for _, want := range []string{
		"Warning RolePrivilegesReverted DatabaseRole shop.setpoint-monitor of role setpoint_monitor was edited to change superuser, inRoles, validUntil; setpoint set them back",
		"Warning RolePrivilegesReverted DatabaseRole shop.setpoint-cert-auth of role setpoint_cert_auth was edited to change createrole; setpoint set them back",
	} {
		if !slices.Contains(events, want) {
			t.Errorf("events = %q, want %q", events, want)
		}
	}
	if n := len(slices.DeleteFunc(events, func(e string) bool { return !strings.Contains(e, "RolePrivilegesReverted") })); n != 2 {
		t.Errorf("%d RolePrivilegesReverted events, want 2", n)
	}
}
