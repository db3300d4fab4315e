package database

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cachelag"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// databasesStage keeps one CNPG Database per database, server-side applied
// with only the fields we own, and waits until CNPG reports it applied for
// its current generation.
//
// CNPG reports a database it could not apply (applied=false, message) and
// retries on its own; the causes we can provoke — the owner role not there
// yet, a server restarting, an extension not installed in the image — are
// either transient or fixed outside this object. So such a Database is
// Provisioning with CNPG's message, not Failed: the message is visible in
// the DatabasesReady condition and the database's status entry, and the
// pass resumes by itself when CNPG succeeds.
//
// It can start ahead of its turn (Prepare, databases_ahead.go).
type databasesStage struct{}

// databasesState is where each database's CNPG Database stands, in spec
// order, as Reconcile left it.
type databasesState struct{ databases []dbOutcome }

func (databasesStage) Name() string      { return pgv1.ConditionDatabasesReady }
func (databasesStage) Condition() string { return pgv1.ConditionDatabasesReady }

func (databasesStage) Reconcile(ctx context.Context, p *pass) error {
	outs := make([]dbOutcome, 0, len(p.db.Spec.Databases))
	for _, d := range p.db.Spec.Databases {
		outs = append(outs, dbOutcome{name: d.Name, h: p.ensureDatabase(ctx, d)})
	}
	p.databases = databasesState{databases: outs}
	return nil
}

func (databasesStage) Observe(_ context.Context, p *pass, _ error) health {
	if h := p.report(p.databases.databases); h.Phase != pgv1.PhaseReady {
		return h
	}
	return ready(pgv1.ReasonDatabasesApplied, fmt.Sprintf("CloudNativePG applied %d database(s)", len(p.db.Spec.Databases)))
}

func (p *pass) ensureDatabase(ctx context.Context, d pgv1.DatabaseSpec) health {
	n := namesOf(p.db, d.Name)
	client := p.deps.pg.CNPGV1().Databases(clusterNS(p.db))
	// CNPG Databases are cached in full: the cache answers for them.
	cur := p.obs.cnpg[n.CNPG]
	if conflict := p.checkClusterSide("CNPG Database", cur); conflict != nil {
		return conflict.Health(pgv1.ReasonDatabaseConflict)
	}
	key, now := types.NamespacedName{Namespace: clusterNS(p.db), Name: n.CNPG}, p.deps.clock.Now()
	seen := cachelag.Absent
	if cur != nil {
		seen = cachelag.At(cur.ResourceVersion)
	}
	if !p.deps.created.CaughtUp(key, seen, now) {
		// Created by a pass just before this one, whose cache does not
		// show it yet: not a second write, and not a second check.
		return databaseApplying(n)
	}
	if cur == nil {
		// No CNPG Database records this database as ours yet: Postgres
		// must not have it, unless setpoint made it for this object.
		if h := p.checkNewDatabase(ctx, n); h.Phase != pgv1.PhaseReady {
			return h
		}
	} else if cur.DeletionTimestamp != nil {
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonDatabaseDeleting, fmt.Sprintf("waiting for the previous CNPG Database %q to be deleted", n.CNPG), provisionRecheck)
	}
	want := desiredDatabase(p.obs.cluster.Name, n, policyOf(d), d.Extensions, cur)
	if cur == nil || !databaseCurrent(cur, p.db, want) {
		ac := databaseApply(p.db, n.CNPG, want, false)
		if !crossNamespace(p.db) {
			ac.WithOwnerReferences(ownership.OwnerRefApply(p.db, gvk))
		}
		if _, err := client.Apply(ctx, ac, applyOpts); err != nil {
			return apiError(pgv1.ReasonDatabaseApplyFailed, fmt.Errorf("apply CNPG Database %s: %w", n.CNPG, err))
		}
		if cur == nil {
			p.deps.created.Created(key, now)
		}
		// The same message as the wait that follows: the status written
		// now stays current until CloudNativePG is done (one write, not two).
		return databaseApplying(n)
	}
	st := cur.Status
	switch {
	case cnpgverdict.CNPGRefused(st.Applied):
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonDatabaseNotApplied, fmt.Sprintf("CloudNativePG could not apply database %s yet: %s", n.DB, failureOf(st)), provisionRecheck)
	case st.ObservedGeneration != cur.Generation || st.Applied == nil:
		return databaseApplying(n)
	}
	return ready("", "")
}

func databaseApplying(n names) health {
	return waiting(pgv1.PhaseProvisioning, pgv1.ReasonDatabaseApplying, fmt.Sprintf("waiting for CloudNativePG to apply CNPG Database %q", n.CNPG), provisionRecheck)
}

// desiredDatabase is the spec we own. Extensions in the spec are present;
// one the applied Database lists but the spec no longer does is absent,
// until CNPG has applied that (then it is dropped from the list).
func desiredDatabase(cluster string, n names, policy pgv1.DeletionPolicy, exts []string, cur *cnpgv1.Database) cnpgv1.DatabaseSpec {
	reclaim := cnpgv1.DatabaseReclaimRetain
	if policy == pgv1.DeletionPolicyDelete {
		reclaim = cnpgv1.DatabaseReclaimDelete
	}
	spec := cnpgv1.DatabaseSpec{
		Cluster: cnpgv1.LocalObjectReference{Name: cluster}, Name: n.DB, Owner: n.AdminRole,
		Ensure: cnpgv1.EnsurePresent, DatabaseReclaimPolicy: reclaim,
	}
	for _, e := range exts {
		spec.Extensions = append(spec.Extensions, cnpgv1.ExtensionSpec{Name: e, Ensure: cnpgv1.EnsurePresent})
	}
	if cur == nil {
		return spec
	}
	done := cur.Status.Applied != nil && *cur.Status.Applied && cur.Status.ObservedGeneration == cur.Generation
	var absent []cnpgv1.ExtensionSpec
	for _, e := range cur.Spec.Extensions {
		if slices.Contains(exts, e.Name) || (done && e.Ensure == cnpgv1.EnsureAbsent) {
			continue
		}
		absent = append(absent, cnpgv1.ExtensionSpec{Name: e.Name, Ensure: cnpgv1.EnsureAbsent})
	}
	slices.SortFunc(absent, func(a, b cnpgv1.ExtensionSpec) int { return cmp.Compare(a.Name, b.Name) })
	spec.Extensions = append(spec.Extensions, absent...)
	return spec
}

// databaseApply is the apply configuration of the fields we own, without
// owner references (a release applies it without them).
// applyOpts: the CNPG Databases are written by server-side apply with
// the fields we own; Force because a conflict means our own earlier apply
// under the same manager (ownership is proven before every apply).
var applyOpts = metav1.ApplyOptions{FieldManager: fieldManager, Force: true}

func databaseApply(db *pgv1.PostgresDatabase, name string, s cnpgv1.DatabaseSpec, retained bool) *cnpgac.DatabaseApplyConfiguration {
	labels := clusterSideLabels(db)
	var annotations map[string]string
	if retained {
		var marks map[string]string
		marks, annotations = ownerOf(db).RetainedMarks()
		maps.Copy(labels, marks)
	}
	spec := cnpgac.DatabaseSpec().
		WithCluster(cnpgac.LocalObjectReference().WithName(s.Cluster.Name)).
		WithName(s.Name).WithOwner(s.Owner).WithEnsure(s.Ensure).
		WithDatabaseReclaimPolicy(s.DatabaseReclaimPolicy)
	for _, e := range s.Extensions {
		spec.WithExtensions(cnpgac.ExtensionSpec().WithName(e.Name).WithEnsure(e.Ensure))
	}
	ac := cnpgac.Database(name, clusterNS(db)).WithLabels(labels).WithSpec(spec)
	if annotations != nil {
		ac.WithAnnotations(annotations)
	}
	return ac
}

// databaseCurrent compares only the fields we own, with CNPG's defaults:
// the API server and CNPG fill in others, which must not cause an apply.
func databaseCurrent(cur *cnpgv1.Database, db *pgv1.PostgresDatabase, want cnpgv1.DatabaseSpec) bool {
	_, retained := cur.Labels[ownership.RetainedLabel]
	if !ownsClusterSide(cur, db) || retained || cur.Labels[ownership.DatabaseLabel] != db.Name {
		return false
	}
	s := cur.Spec
	return s.Cluster.Name == want.Cluster.Name && s.Name == want.Name && s.Owner == want.Owner &&
		cmp.Or(s.Ensure, cnpgv1.EnsurePresent) == want.Ensure &&
		cmp.Or(s.DatabaseReclaimPolicy, cnpgv1.DatabaseReclaimRetain) == want.DatabaseReclaimPolicy &&
		slices.EqualFunc(s.Extensions, want.Extensions, func(a, b cnpgv1.ExtensionSpec) bool {
			return a.Name == b.Name && cmp.Or(a.Ensure, cnpgv1.EnsurePresent) == b.Ensure && a.Version == "" && a.Schema == ""
		})
}

// checkNewDatabase refuses a database that exists in Postgres without
// setpoint's marker for this PostgresDatabase: CNPG would change its owner
// to <db>_admin, and a Delete policy would drop it. A database that has
// the marker was created by setpoint for this object and retained; one
// marked for the object spec.adoptFrom names is taken over
// (mayManageExisting).
func (p *pass) checkNewDatabase(ctx context.Context, n names) health {
	t, err := p.monitor(ctx)
	if err != nil {
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonMonitorUnavailable, err.Error(), sqlRecheck)
	}
	exists, comment, err := p.deps.sql.databaseComment(ctx, t, n.DB)
	if err != nil {
		p.deps.cas.Forget(clusterNS(p.db), naming.CASecret(p.obs.cluster.Name)) // in case the CA rotated
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonDatabaseUnverified,
			fmt.Sprintf("cannot check in Postgres whether database %s already exists: %v", n.DB, err), sqlRecheck)
	}
	if !exists {
		return ready("", "")
	}
	if ok, why := p.mayManageExisting(ctx, "database", n.DB, comment); !ok {
		return failed(pgv1.ReasonDatabaseExists, why, failedRecheck)
	}
	return ready("", "")
}

// failureOf is CNPG's message for a Database it could not apply, with each
// failed extension's own: for those CNPG's message says only "database
// object reconciliation failed".
func failureOf(st cnpgv1.DatabaseStatus) string {
	msg := st.Message
	for _, e := range st.Extensions {
		if !e.Applied {
			msg += fmt.Sprintf("; extension %s: %s", e.Name, e.Message)
		}
	}
	return msg
}
