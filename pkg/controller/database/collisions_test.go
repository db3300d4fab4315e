package database

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// PostgresDatabase "a" with database "b_c" and "a-b" with database "c"
// would both name their children a-b-c-*: the later one is refused,
// naming the earlier, and the earlier is not disturbed.
func TestChildNameCollisionIsTerminalForTheLaterObject(t *testing.T) {
	t.Parallel()
	first := newDatabase("a", pgv1.DatabaseSpec{Name: "b_c"})
	second := newDatabase("a-b", pgv1.DatabaseSpec{Name: "c"})
	second.UID = "uid-second"
	f := newFixture(t, nil, []runtime.Object{readyCluster(), first, second})

	_, err := f.sync("a-b")
	if !workqueue.IsTerminal(err) {
		t.Fatalf("err = %v, want terminal", err)
	}
	db := f.db("a-b")
	msg := cond(t, db, pgv1.ConditionReady).Message
	if db.Status.Phase != pgv1.PhaseFailed || cond(t, db, pgv1.ConditionReady).Reason != "InvalidName" ||
		!strings.Contains(msg, `PostgresDatabase "a" uses for its database "b_c"`) || !strings.Contains(msg, "a-b-c-admin") {
		t.Fatalf("status = %s: %s", db.Status.Phase, msg)
	}

	if _, err := f.syncReported("a"); workqueue.IsTerminal(err) {
		t.Fatalf("the earlier object was refused: %v", err)
	}
	if cond(t, f.db("a"), pgv1.ConditionReady).Reason == "InvalidName" {
		t.Fatal("the earlier object reads InvalidName")
	}
}

func TestDistinctStemsDoNotCollide(t *testing.T) {
	t.Parallel()
	a := newDatabase("a", pgv1.DatabaseSpec{Name: "b_c"})
	other := newDatabase("a-b", pgv1.DatabaseSpec{Name: "d"})
	if err := nameCollision(other, []*pgv1.PostgresDatabase{a, other}); err != nil {
		t.Fatal(err)
	}
}
