package cluster

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
)

const mi = 1 << 20

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func q(s string) resource.Quantity { return resource.MustParse(s) }

func policy(increment, limit string) *autoGrowPolicy {
	l := q(limit)
	return &autoGrowPolicy{threshold: 80, increment: increment, limit: &l, cooldown: 10 * time.Minute}
}

func used(mib int64) *collector.Sample {
	return &collector.Sample{At: t0, DatabaseBytes: mib*mi - 4*mi, WALBytes: 4 * mi}
}

func TestDecideGrowOffRecordsNothing(t *testing.T) {
	t.Parallel()
	d := decideGrow(q("64Mi"), q("64Mi"), nil, nil, used(60), false, t0)
	if d.grew || d.record != nil || d.size.String() != "64Mi" || d.atLimit != nil {
		t.Errorf("auto-grow off: %+v", d)
	}
}

func TestDecideGrowUnderThreshold(t *testing.T) {
	t.Parallel()
	d := decideGrow(q("64Mi"), q("64Mi"), policy("20%", "128Mi"), nil, used(51), false, t0) // 79.7 %
	if d.grew || d.size.String() != "64Mi" {
		t.Fatalf("grew under the threshold: %+v", d)
	}
	if d.record == nil || d.record.Size.String() != "64Mi" || d.record.LastGrowTime != nil || d.record.GrowInFlight {
		t.Errorf("record = %+v", d.record)
	}
	if d.atLimit == nil || d.atLimit.status || d.atLimit.reason != "BelowLimit" || d.recheck != 0 {
		t.Errorf("atLimit = %+v, recheck %s", d.atLimit, d.recheck)
	}
}

func TestDecideGrowOverThresholdGrowsOnePercentStep(t *testing.T) {
	t.Parallel()
	d := decideGrow(q("64Mi"), q("64Mi"), policy("20%", "128Mi"), nil, used(52), false, t0) // 81 %
	if !d.grew || d.from.String() != "64Mi" || d.size.String() != "77Mi" {                  // 76.8Mi rounded up
		t.Fatalf("grow = %v %s → %s", d.grew, d.from.String(), d.size.String())
	}
	r := d.record
	if r.Size.String() != "77Mi" || r.LastGrowFrom.String() != "64Mi" || !r.LastGrowTime.Time.Equal(t0) || !r.GrowInFlight {
		t.Errorf("record = %+v", r)
	}
	if d.recheck != 10*time.Minute {
		t.Errorf("recheck = %s, want the cooldown", d.recheck)
	}
	if d.usage != "52.0 MiB of 64Mi in use (81%)" {
		t.Errorf("usage = %q", d.usage)
	}
}

func TestDecideGrowQuantityIncrement(t *testing.T) {
	t.Parallel()
	d := decideGrow(q("1Gi"), q("1Gi"), policy("10Gi", "100Gi"), nil, used(1000), false, t0)
	if !d.grew || d.size.String() != "11Gi" {
		t.Fatalf("grow to %s, want 11Gi", d.size.String())
	}
}

// The window is read from the mark alone, so an operator restarted inside
// it (a fresh process, the same CNPG Cluster) does not grow again.
func TestDecideGrowOncePerWindow(t *testing.T) {
	t.Parallel()
	p := policy("20%", "128Mi")
	first := decideGrow(q("64Mi"), q("64Mi"), p, nil, used(52), false, t0)
	rec := first.record
	inside := decideGrow(q("77Mi"), q("64Mi"), p, rec, used(75), false, t0.Add(4*time.Minute)) // 97 %
	if inside.grew || inside.size.String() != "77Mi" || !inside.record.GrowInFlight {
		t.Fatalf("grew inside the window: %+v", inside)
	}
	if inside.recheck != 6*time.Minute {
		t.Errorf("recheck = %s, want the rest of the window", inside.recheck)
	}
	after := decideGrow(q("77Mi"), q("64Mi"), p, inside.record, used(75), false, t0.Add(10*time.Minute))
	if !after.grew || after.from.String() != "77Mi" || after.size.String() != "93Mi" { // 92.4Mi
		t.Fatalf("after the window: grew %v to %s", after.grew, after.size.String())
	}
}

func TestDecideGrowWindowEndClearsInFlight(t *testing.T) {
	t.Parallel()
	rec := &pgv1.StorageStatus{Size: ptr.To(q("77Mi")), LastGrowFrom: ptr.To(q("64Mi")), LastGrowTime: &metav1.Time{Time: t0}, GrowInFlight: true}
	d := decideGrow(q("77Mi"), q("64Mi"), policy("20%", "128Mi"), rec, used(40), false, t0.Add(11*time.Minute))
	if d.grew || d.record.GrowInFlight || d.recheck != 0 {
		t.Errorf("after the window, under the threshold: %+v %+v", d, d.record)
	}
	if rec.GrowInFlight != true {
		t.Error("the previous status was modified")
	}
}

func TestDecideGrowCappedAtLimitThenAtLimit(t *testing.T) {
	t.Parallel()
	p := policy("50%", "80Mi")
	d := decideGrow(q("64Mi"), q("64Mi"), p, nil, used(60), false, t0)
	if !d.grew || d.size.String() != "80Mi" {
		t.Fatalf("capped grow to %s, want 80Mi", d.size.String())
	}
	at := decideGrow(q("80Mi"), q("64Mi"), p, d.record, used(70), false, t0.Add(time.Hour))
	if at.grew || at.size.String() != "80Mi" {
		t.Fatalf("grew past the limit: %+v", at)
	}
	if at.atLimit == nil || !at.atLimit.status || at.atLimit.reason != "AtLimit" {
		t.Errorf("atLimit = %+v", at.atLimit)
	}
	under := decideGrow(q("80Mi"), q("64Mi"), p, at.record, used(10), false, t0.Add(2*time.Hour))
	if under.atLimit == nil || under.atLimit.status || under.atLimit.reason != "UnderThreshold" {
		t.Errorf("at the limit, under the threshold: %+v", under.atLimit)
	}
}

func TestDecideGrowNoSampleNoGrow(t *testing.T) {
	t.Parallel()
	p := policy("20%", "128Mi")
	for _, s := range []*collector.Sample{nil, {At: t0, Err: "connection refused"}} {
		d := decideGrow(q("64Mi"), q("64Mi"), p, nil, s, false, t0)
		if d.grew || d.size.String() != "64Mi" {
			t.Errorf("sample %+v: grew", s)
		}
	}
	// At the limit with nothing measured, the condition is left as it was.
	d := decideGrow(q("128Mi"), q("64Mi"), p, nil, nil, false, t0)
	if d.atLimit != nil {
		t.Errorf("atLimit = %+v without a sample", d.atLimit)
	}
}

func TestDecideGrowOffAfterGrowKeepsSize(t *testing.T) {
	t.Parallel()
	rec := &pgv1.StorageStatus{Size: ptr.To(q("77Mi")), LastGrowTime: &metav1.Time{Time: t0}, GrowInFlight: true}
	d := decideGrow(q("77Mi"), q("64Mi"), nil, rec, used(75), false, t0)
	if d.grew || d.size.String() != "77Mi" || d.record.Size.String() != "77Mi" || d.record.GrowInFlight {
		t.Errorf("auto-grow turned off: %+v %+v", d, d.record)
	}
}

func TestDecideGrowUnrecordedGrowStartsWindow(t *testing.T) {
	t.Parallel()
	// The CNPG Cluster runs at 77Mi, its mark says 64Mi: a grow by an
	// earlier setpoint that wrote no mark, or a mark someone edited.
	prev := &pgv1.StorageStatus{Size: ptr.To(q("64Mi"))}
	d := decideGrow(q("77Mi"), q("64Mi"), policy("20%", "128Mi"), prev, used(70), false, t0)
	if !d.grew || d.from.String() != "64Mi" || d.size.String() != "77Mi" || d.record.Size.String() != "77Mi" ||
		d.record.LastGrowTime == nil || !d.record.GrowInFlight {
		t.Errorf("unrecorded grow (kept and announced, no grow on top): %+v %+v", d, d.record)
	}
}

// The size in effect comes from the spec and from our CNPG Cluster (the
// size it runs and setpoint's mark on it), never from status.
func TestSizeInEffect(t *testing.T) {
	t.Parallel()
	pc := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: "c", UID: "u1"}}
	pc.Status.Storage = &pgv1.StorageStatus{Size: ptr.To(q("120Mi"))} // within the limit: status buys nothing
	d := &desired{SpecStorageSize: q("64Mi"), AutoGrow: policy("20%", "128Mi")}
	ours := func(size, mark string) *cnpgv1.Cluster {
		cl := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c", OwnerReferences: []metav1.OwnerReference{{UID: "u1", Controller: ptr.To(true)}}}}
		cl.Spec.Storage = &cnpgv1.StorageConfiguration{Size: size}
		if mark != "" {
			cl.Annotations = map[string]string{storageMarkAnnotation: `{"size":"` + mark + `","from":"64Mi","at":"2026-11-30T12:00:00Z"}`}
		}
		return cl
	}
	cases := []struct {
		name    string
		running *cnpgv1.Cluster
		growOff bool
		spec    string
		want    string
	}{
		{"no CNPG Cluster: the spec, whatever status says", nil, false, "64Mi", "64Mi"},
		{"our grow, marked", ours("77Mi", "77Mi"), false, "64Mi", "77Mi"},
		{"a larger spec wins", ours("77Mi", "77Mi"), false, "100Mi", "100Mi"},
		{"an unmarked grow of our Cluster", ours("93Mi", ""), false, "64Mi", "93Mi"},
		{"a Cluster beyond the limit is not ours to keep", ours("1Gi", ""), false, "64Mi", "64Mi"},
		{"beyond the limit, marked lower: the mark", ours("1Gi", "77Mi"), false, "64Mi", "77Mi"},
		{"auto-grow off keeps the marked size", ours("93Mi", "93Mi"), true, "64Mi", "93Mi"},
		{"auto-grow off, nothing marked", ours("93Mi", ""), true, "64Mi", "64Mi"},
		{"a mark beyond what runs", ours("93Mi", "10Ti"), false, "64Mi", "93Mi"},
		{"a mark beyond what runs, auto-grow off", ours("93Mi", "10Ti"), true, "64Mi", "64Mi"},
	}
	for _, tc := range cases {
		d.SpecStorageSize, d.AutoGrow = q(tc.spec), policy("20%", "128Mi")
		if tc.growOff {
			d.AutoGrow = nil
		}
		if got := sizeInEffect(pc, d, tc.running); got.String() != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got.String(), tc.want)
		}
	}
	foreign := ours("93Mi", "93Mi")
	foreign.OwnerReferences[0].UID = "someone-else"
	d.SpecStorageSize, d.AutoGrow = q("64Mi"), policy("20%", "128Mi")
	if got := sizeInEffect(pc, d, foreign); got.String() != "64Mi" {
		t.Errorf("another owner's Cluster: %s", got.String())
	}
}

func TestDecideGrowWaitsForAResizeInFlight(t *testing.T) {
	t.Parallel()
	rec := &pgv1.StorageStatus{Size: ptr.To(q("77Mi")), LastGrowFrom: ptr.To(q("64Mi")), LastGrowTime: &metav1.Time{Time: t0}}
	p := policy("20%", "128Mi")
	d := decideGrow(q("77Mi"), q("64Mi"), p, rec, used(75), true, t0.Add(time.Hour))
	if d.grew || !d.record.GrowInFlight || d.recheck != 0 {
		t.Fatalf("grew on top of a resize in flight: %+v %+v", d, d.record)
	}
	d = decideGrow(q("77Mi"), q("64Mi"), p, rec, used(75), false, t0.Add(time.Hour))
	if !d.grew {
		t.Fatal("no grow once the resize is done")
	}
}
