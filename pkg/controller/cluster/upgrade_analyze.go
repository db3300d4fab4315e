package cluster

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// upgradeAnalyzing waits for each database on the cluster to be analyzed
// again on the new major: pg_upgrade keeps no planner statistics. Each
// PostgresDatabase's own controller runs ANALYZE as the database's owner,
// the least-privileged role that may, and records the major in
// status.statisticsMajor; the cluster reads that. A database that is not
// Ready does not hold the upgrade back (it is analyzed once it is), and is
// named. The version Postgres itself reports is recorded on the way.
func (p *pass) upgradeAnalyzing(ctx context.Context, rec *pgv1.MajorUpgradeStatus) {
	if f := p.postgresFacts(ctx); f != nil && f.err == nil && f.version != rec.ServerVersion {
		rec.ServerVersion = f.version
		if major := versionMajor(f.version); major != int(rec.To) {
			p.upgradeEvent(corev1.EventTypeWarning, pgv1.ReasonUpgradeAnalyzing, fmt.Sprintf(
				"Postgres reports version %s after the upgrade to %d: the image the CNPG Cluster runs is not the major its tag or catalog says", f.version, rec.To))
		}
	}
	var pending, skipped []string
	for _, db := range informers.ListDatabasesOf(p.deps.databases, p.cluster.Namespace, p.cluster.Name) {
		switch {
		case db.DeletionTimestamp != nil || db.Status.StatisticsMajor >= rec.To:
		case db.Status.Phase != pgv1.PhaseReady:
			skipped = append(skipped, db.Name)
		default:
			pending = append(pending, db.Name)
		}
	}
	if rec.ServerVersion == "" || len(pending) > 0 {
		msg := fmt.Sprintf("PostgreSQL %d runs; waiting for ANALYZE in %d PostgresDatabase(s): %s", rec.To, len(pending), strings.Join(pending, ", "))
		if rec.ServerVersion == "" {
			msg = fmt.Sprintf("PostgreSQL %d runs; reading the version Postgres reports", rec.To)
		}
		p.upgradeWaits(rec, pgv1.ReasonUpgradeAnalyzing, msg, upgradeAnalyzeRecheck)
		return
	}
	msg := fmt.Sprintf("PostgreSQL %s runs, and every database was analyzed", rec.ServerVersion)
	if len(skipped) > 0 {
		msg += fmt.Sprintf("; not Ready, so analyzed once they are: %s", strings.Join(skipped, ", "))
	}
	p.upgradeTo(rec, pgv1.UpgradeSucceeded, msg)
	p.upgradeCondition(true, pgv1.ReasonUpgradeSucceeded, msg)
}

// upgradingClusterOf routes a PostgresDatabase to its cluster while that
// cluster is in a major upgrade, and nowhere otherwise: creating a hundred
// databases must not cost their cluster a hundred passes.
func (c *Controller) upgradingClusterOf(obj any) []workqueue.Key {
	db, ok := obj.(*pgv1.PostgresDatabase)
	if !ok {
		return nil
	}
	pc, err := c.clusters.PostgresClusters(db.Spec.ClusterRef.NamespaceOr(db.Namespace)).Get(db.Spec.ClusterRef.Name)
	if err != nil || pc.Status.Upgrade == nil || !pc.Status.Upgrade.Phase.InProgress() {
		return nil
	}
	return []workqueue.Key{{Namespace: pc.Namespace, Name: pc.Name}}
}

// versionMajor is the major of a server_version ("17.6 (Debian 17.6-1)").
func versionMajor(v string) int {
	n, _ := strconv.Atoi(strings.SplitN(strings.SplitN(v, " ", 2)[0], ".", 2)[0])
	return n
}
