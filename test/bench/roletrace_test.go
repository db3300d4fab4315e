package main

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

func TestRoleTraceAppliedOnlyAtItsGeneration(t *testing.T) {
	tr := newRoleTrace("c", func(o string) string { return o })
	t0 := time.Now()
	r := &cnpgv1.DatabaseRole{ObjectMeta: metav1.ObjectMeta{Name: "c000.x-admin", Generation: 2},
		Spec:   cnpgv1.DatabaseRoleSpec{Name: "x_admin"},
		Status: cnpgv1.DatabaseRoleStatus{ObservedGeneration: 1, Applied: ptr.To(true)}}
	tr.observeRole(r, t0)
	if _, ok := tr.roleApplied["x_admin"]; ok || !tr.roleCreated["x_admin"].Equal(t0) {
		t.Fatalf("an earlier generation's applied counted: created %v, applied %v", tr.roleCreated, tr.roleApplied)
	}
	r.Status.ObservedGeneration = 2
	tr.observeRole(r, t0.Add(time.Second))
	if !tr.roleApplied["x_admin"].Equal(t0.Add(time.Second)) || !tr.roleCreated["x_admin"].Equal(t0) {
		t.Fatalf("created %v, applied %v", tr.roleCreated, tr.roleApplied)
	}
}

func TestRoleTraceMilestones(t *testing.T) {
	at := time.Now()
	ms := func(n int) time.Time { return at.Add(time.Duration(n) * time.Millisecond) }
	r := newReadiness(2)
	r.steps = map[string][]stateStep{}
	r.applied["cluster/c000"] = at
	r.ready["cluster/c000"] = ms(50)
	r.applied["database/c000-d0"] = at
	r.steps["database/c000-d0"] = []stateStep{
		{ms(100), "Provisioning/RolesReady:RolesPending"},
		{ms(450), "Provisioning/DatabasesReady:DatabaseApplying"},
		{ms(800), "Ready"},
	}
	r.ready["database/c000-d0"] = ms(800)
	// Not through every step (no CNPG Database): left out.
	r.applied["database/c000-d1"] = at
	r.ready["database/c000-d1"] = ms(900)

	tr := newRoleTrace("c", func(o string) string { return "p" + strings.Replace(o, "-", "", 1) })
	tr.clusterOf = func(o string) string { c, _, _ := strings.Cut(o, "-"); return c }
	tr.roleCreated["pc000d0_admin"], tr.roleApplied["pc000d0_admin"] = ms(100), ms(200)
	tr.roleCreated["pc000d0_rw"], tr.roleApplied["pc000d0_rw"] = ms(110), ms(400)
	tr.cnpgDB["pc000d0"], tr.cnpgDBApplied["pc000d0"] = ms(450), ms(700)
	tr.roleCreated["pc000d1_admin"], tr.roleApplied["pc000d1_admin"] = ms(100), ms(200)

	got := tr.milestones(r)
	want := []string{
		"over 1 databases, mean time after apply:",
		" 0.050s  its PostgresCluster Ready",
		" 0.100s  " + stageNames[stRoleCreated],
		" 0.200s  " + stageNames[stRoleApplied],
		" 0.400s  " + stageNames[stAllRolesApplied],
		" 0.450s  " + stageNames[stLeftRoles],
		" 0.450s  " + stageNames[stDBCreated],
		" 0.700s  " + stageNames[stDBApplied],
		" 0.800s  " + stageNames[stLeftDB],
		" 0.800s  " + stageNames[stReady],
		// Roles 100 → 400 ms, Database 450 → 700 ms.
		"of the mean 0.800s to Ready, the stand-in's own work (DatabaseRoles applied, CREATE DATABASE; the union of their intervals) is 0.550s, the rest 0.250s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("milestones:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStandInShareIsTheUnionOfItsIntervals(t *testing.T) {
	at := time.Now()
	ms := func(n int) time.Time { return at.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name                     string
		roles0, roles1, db0, db1 int
		want                     time.Duration
	}{
		// The Database starts once the owner role is applied, while the
		// second role is still in hand: 100 → 700 ms, not 300 + 500.
		{"overlapping", 100, 400, 200, 700, 600 * time.Millisecond},
		{"one inside the other", 100, 800, 200, 700, 700 * time.Millisecond},
		{"apart", 100, 200, 300, 500, 300 * time.Millisecond},
		{"touching", 100, 200, 200, 500, 400 * time.Millisecond},
		{"database first", 300, 500, 100, 200, 300 * time.Millisecond},
	} {
		if got := unionOf(ms(tc.roles0), ms(tc.roles1), ms(tc.db0), ms(tc.db1)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
