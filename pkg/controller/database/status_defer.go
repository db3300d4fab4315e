package database

import (
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// progressReportDelay bounds how long the stored status may lag behind a
// database moving on from one expected wait to the next. On the way to
// Ready a database passes through up to three (the cluster, its roles,
// CloudNativePG applying the Database), each usually over within seconds
// and each ended by an event we watch: writing every one costs a status
// write per wait per database on the operator's rate-limited client,
// which is what delays convergence at scale, for a state nobody reads
// before Ready replaces it. 30 s: two hops of a busy queue plus
// CloudNativePG's work fit within it on a loaded machine where 20 s (the
// former bound of the DatabaseApplying wait alone) did not (the figures
// are in docs/benchmarks/history.md); and it is the safety-net recheck of
// those very waits
// (provisionRecheck, clusterNotReadyRecheck), so a status is no staler
// than polling would leave it. Past the bound the wait is written as
// usual.
const progressReportDelay = 30 * time.Second

// progressWaits are the waits every database passes through on its way to
// Ready, by their Ready reason, in pipeline order. Only a move among them,
// forward, is progress: any other wait (a cluster Failed or being deleted,
// CloudNativePG refusing a Database, the superuser unreachable, ...) is
// news and written at once, and so is a move back (the cluster was Ready
// and is not anymore).
var progressWaits = map[string]int{
	pgv1.ReasonClusterNotReady:  1,
	pgv1.ReasonRolesPending:     2,
	pgv1.ReasonDatabaseApplying: 3,
}

// deferredWrite reports whether this pass may leave status as it is, and
// for how long: only when the stored status shows a progress wait at this
// generation with the Secrets and roles this pass would write, and this pass
// only moved forward to another progress wait. The deferral is bounded
// from the first pass that deferred (staleSince), not renewed by later
// ones; anything else a user would read differently (Ready, a failure, a
// new generation, a rotation, a removal, an API error) is written at once.
func (p *pass) deferredWrite(out pipeline.Outcome, removal health) (time.Duration, bool) {
	if !p.progressOnly(out, removal) {
		return 0, false
	}
	key := types.NamespacedName{Namespace: p.db.Namespace, Name: p.db.Name}
	left := p.deps.stale.left(key, p.db.UID, p.deps.clock.Now())
	return left, left > 0
}

// progressOnly: the new status is a progress wait of this generation,
// and the stored one either a progress wait no later in the pipeline that
// differs in nothing but that progress, or never written at all: a new
// database's first write then waits for Ready or for news, within the
// same bound.
func (p *pass) progressOnly(out pipeline.Outcome, removal health) bool {
	stored, next := &p.db.Status, p.status
	if out.Err != nil || removal.Phase != pgv1.PhaseReady || len(p.obs.removed) > 0 {
		return false
	}
	if next.ObservedGeneration != p.db.Generation || !isWait(next.Phase) {
		return false
	}
	to, ok := progressWaits[readyReason(next, p.db.Generation)]
	if !ok {
		return false
	}
	if neverWritten(stored) {
		return sameRotation(stored, next)
	}
	if stored.ObservedGeneration != p.db.Generation || !isWait(stored.Phase) {
		return false
	}
	from, ok := progressWaits[readyReason(stored, p.db.Generation)]
	if !ok || to < from {
		return false
	}
	return sameApartFromProgress(stored, next)
}

// neverWritten: no pass has written this status yet.
func neverWritten(st *pgv1.PostgresDatabaseStatus) bool {
	return st.ObservedGeneration == 0 && st.Phase == "" && len(st.Conditions) == 0 && len(st.Databases) == 0
}

func isWait(ph pgv1.Phase) bool { return ph == pgv1.PhasePending || ph == pgv1.PhaseProvisioning }

// readyReason is the reason of the Ready condition at generation: the
// blocking step's reason (conclude).
func readyReason(st *pgv1.PostgresDatabaseStatus, generation int64) string {
	c := meta.FindStatusCondition(st.Conditions, pgv1.ConditionReady)
	if c == nil || c.ObservedGeneration != generation || c.Status == metav1.ConditionTrue {
		return ""
	}
	return c.Reason
}

// sameApartFromProgress: the two statuses differ at most in phase,
// conditions other than PasswordRotation, how far each database got
// (ready, message, roles found) and connection-info ConfigMaps published
// since the stored one — what moving on from one wait to the next
// changes. The Secrets and roles each entry names (the claim) must be the
// same.
func sameApartFromProgress(stored, next *pgv1.PostgresDatabaseStatus) bool {
	if !sameRotation(stored, next) {
		return false
	}
	unpublished := map[string]bool{}
	for _, e := range stored.Databases {
		unpublished[e.Name] = e.ConfigMapRef == nil
	}
	strip := func(s *pgv1.PostgresDatabaseStatus) *pgv1.PostgresDatabaseStatus {
		s = s.DeepCopy()
		s.Phase, s.Conditions = "", nil
		for i := range s.Databases {
			e := &s.Databases[i]
			e.Ready, e.Message = false, ""
			if unpublished[e.Name] {
				e.ConfigMapRef = nil
			}
			for j := range e.Roles {
				e.Roles[j].Exists = false
			}
		}
		return s
	}
	return apiequality.Semantic.DeepEqual(strip(stored), strip(next))
}

// sameRotation: a rotation request's progress is reported as it happens.
func sameRotation(a, b *pgv1.PostgresDatabaseStatus) bool {
	ca := meta.FindStatusCondition(a.Conditions, pgv1.ConditionPasswordRotation)
	cb := meta.FindStatusCondition(b.Conditions, pgv1.ConditionPasswordRotation)
	if ca == nil || cb == nil {
		return ca == nil && cb == nil
	}
	return ca.Status == cb.Status && ca.Reason == cb.Reason && ca.Message == cb.Message
}
