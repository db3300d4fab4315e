package database

import (
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// applyReportDelay bounds how long a new CNPG Database may be waited for
// without saying so in status. CloudNativePG usually applies a new
// database within a second, and its status change wakes the pass that
// then writes Ready: the DatabaseApplying wait in between would be a
// status write nobody reads. Past the bound the wait is written as usual.
// 10 s was exceeded by many databases of a 20 × 10 bench on a loaded
// machine (CREATE DATABASE queues on the shared server).
const applyReportDelay = 20 * time.Second

// deferredWrite reports whether this pass may leave status as it is, and
// for how long: only when status already shows a provisioning wait at this
// generation, the pass only moved on within it to waiting for
// CloudNativePG to apply a CNPG Database setpoint created for this
// generation, and that Database is younger than applyReportDelay. Anything
// else a user would read differently (a failure, a new generation, a
// rotation, a removal) is written at once.
func (p *pass) deferredWrite(out outcome, removal health) (time.Duration, bool) {
	stored := &p.db.Status
	if out.blocker != pgv1.ConditionDatabasesReady || out.health.Reason != "DatabaseApplying" ||
		removal.Phase != pgv1.PhaseReady ||
		stored.Phase != pgv1.PhaseProvisioning || stored.ObservedGeneration != p.db.Generation {
		return 0, false
	}
	if !sameApartFromProgress(stored, p.status) {
		return 0, false
	}
	left, ok := p.newDatabasesWait()
	if !ok || left <= 0 {
		return 0, false
	}
	return left, true
}

// newDatabasesWait is how long the youngest bound of the CNPG Databases
// still to be applied leaves: one this pass created (absent from the
// snapshot) has the whole bound; one CloudNativePG has not reported on yet
// since its creation, what is left of it. Any other Database still
// waiting ends the deferral.
func (p *pass) newDatabasesWait() (time.Duration, bool) {
	left := applyReportDelay
	for _, d := range p.db.Spec.Databases {
		cur := p.obs.cnpg[namesOf(p.db.Name, d.Name).CNPG]
		if cur == nil {
			continue // applied by this very pass
		}
		st := cur.Status
		if st.Applied != nil && *st.Applied && st.ObservedGeneration == cur.Generation {
			continue // done
		}
		if cur.Generation > 1 || st.ObservedGeneration != 0 || st.Applied != nil {
			return 0, false // a change of an existing Database, or CNPG has spoken
		}
		left = min(left, applyReportDelay-now().Sub(cur.CreationTimestamp.Time))
	}
	return left, true
}

// sameApartFromProgress: the two statuses differ at most in phase,
// conditions and how far each database got (ready, message, roles found)
// — what moving on from one wait to the next changes.
func sameApartFromProgress(a, b *pgv1.PostgresDatabaseStatus) bool {
	strip := func(s *pgv1.PostgresDatabaseStatus) *pgv1.PostgresDatabaseStatus {
		s = s.DeepCopy()
		s.Phase, s.Conditions = "", nil
		for i := range s.Databases {
			e := &s.Databases[i]
			e.Ready, e.Message = false, ""
			for j := range e.Roles {
				e.Roles[j].Exists = false
			}
		}
		return s
	}
	return apiequality.Semantic.DeepEqual(strip(a), strip(b))
}
