package cluster

import (
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// CloudNativePG's words for the data durability.
var cnpgDataDurability = map[pgv1.DataDurability]string{
	pgv1.DataDurabilityRequired:  "required",
	pgv1.DataDurabilityPreferred: "preferred",
}

// synchronousOf is the CNPG Cluster's postgresql.synchronous for a
// durability: nil when asynchronous, so our apply leaves the stanza out
// and CloudNativePG clears synchronous_standby_names. The method is
// always "any" (a quorum of any N standbys): every standby of a setpoint
// cluster is alike, so a priority order ("first") would only make one
// standby special. dataDurability is always said, Required included, so
// that Preferred turned back to Required reaches CloudNativePG.
func synchronousOf(d *pgv1.DurabilitySpec) *cnpgac.SynchronousReplicaConfigurationApplyConfiguration {
	n := d.SynchronousStandbys()
	if n == 0 {
		return nil
	}
	dd := d.DataDurability
	if dd == "" {
		dd = pgv1.DataDurabilityRequired
	}
	return cnpgac.SynchronousReplicaConfiguration().WithMethod("any").WithNumber(int(n)).
		WithDataDurability(cnpgDataDurability[dd])
}

// synchronousMatches compares the CNPG Cluster's stanza with the one
// synchronousOf writes.
func synchronousMatches(pc *cnpgv1.PostgresConfiguration, d *pgv1.DurabilitySpec) bool {
	var cur *cnpgv1.SynchronousReplicaConfiguration
	if pc != nil {
		cur = pc.Synchronous
	}
	want := synchronousOf(d)
	if want == nil || cur == nil {
		return (want == nil) == (cur == nil)
	}
	return cur.Method == *want.Method && cur.Number == *want.Number && cur.DataDurability == *want.DataDurability
}
