package cluster

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// appliedSynchronous is the CNPG Cluster's postgresql as the API server
// would store our apply of d.
func appliedSynchronous(t *testing.T, d *pgv1.DurabilitySpec) *cnpgv1.PostgresConfiguration {
	t.Helper()
	pc := cnpgac.PostgresConfiguration()
	if s := synchronousOf(d); s != nil {
		pc.WithSynchronous(s)
	}
	out := storedAs[cnpgv1.PostgresConfiguration](t, pc)
	return &out
}

func TestDurabilityGoesToCNPGsSynchronousStanza(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    *pgv1.DurabilitySpec
		want *cnpgv1.SynchronousReplicaConfiguration
	}{
		{"unset", nil, nil},
		{"asynchronous", &pgv1.DurabilitySpec{Mode: pgv1.DurabilityAsynchronous}, nil},
		{"synchronous, its defaults", &pgv1.DurabilitySpec{Mode: pgv1.DurabilitySynchronous},
			&cnpgv1.SynchronousReplicaConfiguration{Method: "any", Number: 1, DataDurability: "required"}},
		{"two standbys, preferred", &pgv1.DurabilitySpec{Mode: pgv1.DurabilitySynchronous, Standbys: ptr.To[int32](2), DataDurability: pgv1.DataDurabilityPreferred},
			&cnpgv1.SynchronousReplicaConfiguration{Method: "any", Number: 2, DataDurability: "preferred"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := appliedSynchronous(t, tc.d)
			if (got.Synchronous == nil) != (tc.want == nil) || (tc.want != nil && *got.Synchronous != *tc.want) {
				t.Fatalf("synchronous %+v, want %+v", got.Synchronous, tc.want)
			}
			if !synchronousMatches(got, tc.d) {
				t.Error("the applied stanza does not match the durability it came from")
			}
		})
	}
	// Drift both ways: a stanza someone removed, or one left by hand on
	// an asynchronous cluster (the field is ours: our apply removes it).
	sync := &pgv1.DurabilitySpec{Mode: pgv1.DurabilitySynchronous}
	if synchronousMatches(&cnpgv1.PostgresConfiguration{}, sync) {
		t.Error("a missing stanza matches Synchronous")
	}
	if synchronousMatches(appliedSynchronous(t, sync), nil) {
		t.Error("a stanza matches an asynchronous cluster")
	}
	changed := appliedSynchronous(t, sync)
	changed.Synchronous.DataDurability = "preferred"
	if synchronousMatches(changed, sync) {
		t.Error("dataDurability changed by hand is not drift")
	}
}

// The CRD refuses standbys ≥ instances within one object; from a class
// and a cluster only the merge sees it.
func TestDurabilityNeedsMoreInstancesThanStandbysAcrossClassAndCluster(t *testing.T) {
	class := &pgv1.PostgresClusterClass{Spec: pgv1.PostgresClusterClassSpec{ClusterSettings: pgv1.ClusterSettings{Instances: ptr.To[int32](2)}}}
	c := &pgv1.PostgresCluster{Spec: pgv1.PostgresClusterSpec{Class: "c", ClusterSettings: pgv1.ClusterSettings{
		Durability: &pgv1.DurabilitySpec{Mode: pgv1.DurabilitySynchronous, Standbys: ptr.To[int32](2)}}}}
	_, err := resolve(c, class)
	var se *specError
	if !errors.As(err, &se) || se.reason != pgv1.ReasonDurabilityInvalid || !strings.Contains(se.message, "2 instance(s), so 1 standby(s)") {
		t.Fatalf("resolve: %v, want DurabilityInvalid naming 2 instances", err)
	}
	c.Spec.Instances = ptr.To[int32](3)
	if _, err := resolve(c, class); err != nil {
		t.Fatalf("three instances for two standbys: %v", err)
	}
	// The cluster's durability replaces its class's whole: Asynchronous
	// never keeps the class's standbys.
	class.Spec.Durability = &pgv1.DurabilitySpec{Mode: pgv1.DurabilitySynchronous, Standbys: ptr.To[int32](1)}
	c.Spec.Durability = &pgv1.DurabilitySpec{Mode: pgv1.DurabilityAsynchronous}
	d, err := resolve(c, class)
	if err != nil || d.Settings.Durability.Standbys != nil || d.Settings.Durability.SynchronousStandbys() != 0 {
		t.Fatalf("merged durability %+v (%v), want the cluster's Asynchronous alone", d.Settings.Durability, err)
	}
}
