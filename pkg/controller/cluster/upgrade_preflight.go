package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// removedParameters are the server parameters each major removed (its
// release notes): a cluster that sets one in postgresqlConfig would not
// start on that major, so the upgrade must not begin.
var removedParameters = map[int][]string{
	16: {"force_parallel_mode", "promote_trigger_file", "vacuum_defer_cleanup_age"},
	17: {"db_user_namespace", "old_snapshot_threshold", "trace_recovery_messages"},
}

// cnpgMajors are the majors the supported CloudNativePG (1.30) runs that
// setpoint supports: the bounds of postgresVersion in the API.
var cnpgMajors = struct{ min, max int }{15, 18}

// upgradePreflight checks, before anything changes, what the target major
// needs. The CNPG Cluster keeps the data's image (the hold) until the
// preflight and the backup are done; obstacles are all named at once, and
// checked again when the cluster or a database changes, or after
// upgradePreflightRecheck (an image's contents change by nothing we watch).
func (p *pass) upgradePreflight(ctx context.Context, rec *pgv1.MajorUpgradeStatus) error {
	p.upgrade.hold = holdOf(p.observedCNPG(), p.want)
	var obstacles []string
	if to := int(rec.To); to < cnpgMajors.min || to > cnpgMajors.max {
		obstacles = append(obstacles, fmt.Sprintf("CloudNativePG 1.30 runs PostgreSQL %d to %d with setpoint, not %d", cnpgMajors.min, cnpgMajors.max, to))
	}
	obstacles = append(obstacles, removedSettings(p.want.Settings.PostgreSQLConfig, int(rec.From), int(rec.To))...)
	exts := p.declaredExtensions()
	if len(exts) > 0 && len(obstacles) == 0 {
		res, err := p.probeExtensions(ctx, rec, slices.Sorted(maps.Keys(exts)))
		if err != nil {
			return err
		}
		if !res.done {
			p.upgradeWaits(rec, pgv1.ReasonUpgradePreflight, res.waiting, upgradeProbeRecheck)
			return nil
		}
		for _, e := range res.missing {
			obstacles = append(obstacles, fmt.Sprintf("extension %s (database %s) is not in the PostgreSQL %d image %s", e, strings.Join(exts[e], ", "), rec.To, res.image))
		}
		obstacles = append(obstacles, res.obstacles...)
	}
	if len(obstacles) > 0 {
		p.upgradeWaits(rec, pgv1.ReasonUpgradePreflightFailed, fmt.Sprintf(
			"the upgrade from %d to %d cannot start, and nothing was changed: %s", rec.From, rec.To, strings.Join(obstacles, "; ")),
			upgradePreflightRecheck)
		logUpgrade(ctx, rec, "Upgrade preflight failed", "obstacles", len(obstacles))
		return nil
	}
	p.upgradeTo(rec, pgv1.UpgradeBackingUp, "preflight passed")
	return nil
}

// removedSettings names each parameter of config that a major above from,
// up to to, removed.
func removedSettings(config map[string]string, from, to int) []string {
	var out []string
	for major := from + 1; major <= to; major++ {
		for _, name := range removedParameters[major] {
			if _, set := config[name]; set {
				out = append(out, fmt.Sprintf("parameter %s was removed in PostgreSQL %d: remove it from postgresqlConfig", name, major))
			}
		}
	}
	return out
}

// declaredExtensions are the extensions the cluster's PostgresDatabases
// declare, each with the databases that declare it.
func (p *pass) declaredExtensions() map[string][]string {
	out := map[string][]string{}
	for _, db := range informers.ListDatabasesOf(p.deps.databases, p.cluster.Namespace, p.cluster.Name) {
		for _, d := range db.Spec.Databases {
			for _, e := range d.Extensions {
				out[e] = append(out[e], naming.TenantDatabase(db.Namespace, p.cluster.Namespace, db.Name, d.Name).DB)
			}
		}
	}
	return out
}
