package inspect

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// WriteClusterReport prints the report as one screen for a person: the
// cluster's phase and conditions, its instances, pooler and backups, then
// each database with its condition chain.
func WriteClusterReport(w io.Writer, r ClusterReport, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format+"\n", a...) }
	p("PostgresCluster %s/%s (class %s): %s%s", r.Namespace, r.Name, r.Class, orNone(r.Phase), stale(r.Current))
	writeConditions(p, "  ", r.Conditions)
	p("")
	writeInstances(p, r.Instances, now)
	writePooler(p, r.Pooler)
	writeBackup(p, r.Backup, now)
	p("")
	if len(r.Databases) == 0 {
		p("Databases: none")
	}
	for _, d := range r.Databases {
		p("PostgresDatabase %s (%s): %s%s", d.Name, strings.Join(d.Databases, ", "), orNone(d.Phase), stale(d.Current))
		writeConditions(p, "  ", d.Conditions)
	}
	return tw.Flush()
}

type printer func(format string, a ...any)

func writeConditions(p printer, indent string, conds []Condition) {
	if len(conds) == 0 {
		p("%s(no conditions yet)", indent)
	}
	for _, c := range conds {
		p("%s%s\t%s\t%s\t%s", indent, mark(c), c.Type, c.Reason, c.Message)
	}
}

func writeInstances(p printer, in InstancesReport, now time.Time) {
	if in.CNPGCluster == "" {
		p("Instances:\t%d/%d ready (no CNPG Cluster yet)", in.Ready, in.Desired)
		return
	}
	p("Instances:\t%d/%d ready, CNPG Cluster %s: %s", in.Ready, in.Desired, in.CNPGCluster, orNone(in.CNPGPhase))
	p("  primary\t%s", orNone(in.Primary))
	if in.TargetPrimary != "" {
		p("  target primary\t%s (switchover or failover in progress)", in.TargetPrimary)
	}
	if len(in.Replicas) > 0 {
		p("  replicas\t%s", strings.Join(in.Replicas, ", "))
	}
	switch {
	case in.ReplicationLagBytes != nil:
		p("  replication lag\t%d bytes (sampled %s ago)", *in.ReplicationLagBytes, age(now, *in.SampledAt))
	case in.SampledAt != nil:
		p("  replication lag\tno standby streaming (sampled %s ago)", age(now, *in.SampledAt))
	}
	if in.LastReplayedAt != nil && in.SampledAt != nil {
		p("  last replayed\ta commit of %s ago on the source (sampled %s ago)", age(in.SampledAt.Time, *in.LastReplayedAt), age(now, *in.SampledAt))
	}
}

func writePooler(p printer, pl PoolerReport) {
	if !pl.Enabled {
		p("Pooler:\tdisabled")
		return
	}
	for _, o := range []*PoolerObject{pl.ReadWrite, pl.ReadOnly} {
		if o != nil {
			p("Pooler:\t%s: %s (%d PgBouncer instance(s) created)", o.Name, orNone(o.Phase), o.Instances)
		}
	}
}

func writeBackup(p printer, b BackupReport, now time.Time) {
	if b.ObjectStore == "" {
		p("Backup:\tno object store")
		return
	}
	p("Backup:\tObjectStore %s, serverName %s", b.ObjectStore, orNone(b.ServerName))
	if b.LastBackup != nil {
		p("  last backup\t%s (%s ago)", b.LastBackup.UTC().Format(time.RFC3339), age(now, *b.LastBackup))
	} else {
		p("  last backup\tnone yet")
	}
	if b.RecoveryWindow != nil {
		p("  recovery window\t%s → now", b.RecoveryWindow.From.UTC().Format(time.RFC3339))
	}
	if b.LastFailedBackup != nil && (b.LastBackup == nil || b.LastFailedBackup.After(b.LastBackup.Time)) {
		p("  last failure\t%s (%s ago)", b.LastFailedBackup.UTC().Format(time.RFC3339), age(now, *b.LastFailedBackup))
	}
	if lr := b.LastRequest; lr != nil {
		p("  last request\t%s → %s%s", lr.ID, orNone(lr.Backup), parenthesised(lr.Message))
	}
	if h := b.Health; h != nil {
		p("  health\t%s %s: %s", mark(h.Condition), h.Condition.Reason, h.Condition.Message)
		p("  what to do\t%s", h.Advice)
	}
}

func mark(c Condition) string {
	good := c.Status == "True"
	if slices.Contains(pgv1.AlarmConditions, c.Type) {
		good = c.Status == "False"
	}
	switch {
	case c.Status != "True" && c.Status != "False":
		return "?"
	case good:
		return "✓"
	default:
		return "✗"
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func stale(current bool) string {
	if current {
		return ""
	}
	return " (status is of an older generation)"
}

func parenthesised(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
