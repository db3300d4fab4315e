package roleprivilege

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// The patch that removes what an apply cannot is guarded by the UID and
// resourceVersion of the object judged: a concurrent change fails it.
func TestPrivilegeScrubIsGuarded(t *testing.T) {
	t.Parallel()
	until := metav1.Now()
	r := &cnpgv1.DatabaseRole{ObjectMeta: metav1.ObjectMeta{Name: "pg.orders-rw", UID: "uid-1", ResourceVersion: "42"},
		Spec: cnpgv1.DatabaseRoleSpec{InRoles: []string{"pg_monitor"}, ValidUntil: &until}}
	patch, err := ScrubPatch(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"op":"test","path":"/metadata/uid","value":"uid-1"},{"op":"test","path":"/metadata/resourceVersion","value":"42"},` +
		`{"op":"remove","path":"/spec/validUntil"},{"op":"remove","path":"/spec/inRoles"}]`
	if string(patch) != want {
		t.Errorf("patch = %s\nwant    %s", patch, want)
	}
}
