package database

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// After its cluster's major upgrade a database is analyzed again, as its
// owner: pg_upgrade keeps no planner statistics. The privileges step does
// it, database by database, right after running its grants again (their
// check after the upgrade), and records the major in
// status.statisticsMajor, which the cluster's upgrade waits on
// (cluster/upgrade_analyze.go). A database created after the upgrade is
// analyzed once too, which costs an empty database nothing.

// analysisDue is the major the databases must be analyzed on, or 0: the
// cluster's upgrade has reached Analyzing (or ended there) on a major
// above the one the statistics were built on.
func analysisDue(db *pgv1.PostgresDatabase, pc *pgv1.PostgresCluster) int32 {
	if pc == nil || pc.Status.Upgrade == nil {
		return 0
	}
	u := pc.Status.Upgrade
	if (u.Phase != pgv1.UpgradeAnalyzing && u.Phase != pgv1.UpgradeSucceeded) || u.To <= db.Status.StatisticsMajor {
		return 0
	}
	return u.To
}

// analyzeAfterUpgrade analyzes database dbName through t; ok is false with
// the step's health when it failed. Extensions older than the new
// server's default are announced: CloudNativePG's Database updates an
// extension only to a version the spec names.
func (p *pass) analyzeAfterUpgrade(ctx context.Context, t postgres.Target, dbName string, major int32) (health, bool) {
	outdated, err := p.deps.sql.analyze(ctx, t)
	if err != nil {
		msg := fmt.Sprintf("ANALYZE database %s after the upgrade to PostgreSQL %d: %v", dbName, major, err)
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonAnalyzeFailed, msg, sqlRecheck), false
	}
	klog.FromContext(ctx).V(2).Info("Analyzed after a major upgrade", "database", dbName, "major", major)
	if len(outdated) > 0 {
		p.deps.recorder.Eventf(p.db, corev1.EventTypeNormal, pgv1.ReasonClusterUpgrading,
			"Database %s has extensions older than PostgreSQL %d's default: %s; run ALTER EXTENSION ... UPDATE as the owner when the application is ready",
			dbName, major, strings.Join(outdated, ", "))
	}
	return health{}, true
}
