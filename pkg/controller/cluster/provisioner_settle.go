package cluster

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// CNPG's status can flap faster than anyone can read it: a plugin error
// retried every 15 s registers "Setting up primary" for milliseconds
// before the error again, a failover or a failing stand-in alternates two
// phases. Mirrored one to one, every flip is a PostgresCluster status
// write, an Event and a pass of every PostgresDatabase on the cluster. So a
// pass reports CNPG's status only once it has held still for phaseSettle;
// until then it reports what it reported before. A status that never holds
// still is reported anyway once it has been held back for phaseMaxHold,
// so a flap costs at most one write per phaseMaxHold, and a status that
// settles is written at most phaseSettle after it settled.
//
// One change is reported at once: becoming healthy, which is what
// `kubectl wait`, PostgresDatabases and people wait for (a new cluster is
// Ready as soon as CNPG says so). At most once per phaseMaxHold, so a
// flap in and out of healthy is still coalesced.
const (
	phaseSettle  = 2 * time.Second
	phaseMaxHold = 30 * time.Second
)

// cnpgView is what a pass reports of a CNPG Cluster's status.
type cnpgView struct {
	phase, reason             string
	instances, readyInstances int
	currentPrimary            string
}

// bootstrapped reports whether an instance of the Cluster has run as its
// primary: CNPG's instance manager names itself currentPrimary when it
// starts, which after bootstrap.recovery is only once the full-recovery
// Job succeeded. (CNPG's Initialized condition cannot tell: CNPG 1.30
// sets it True as soon as an instance's PVC exists, the failed recovery
// Job's included — see realcnpg's TestFailedRestoreOnRealCNPG.)
func (v cnpgView) bootstrapped() bool { return v.currentPrimary != "" }

func viewOf(cl *cnpgv1.Cluster) cnpgView {
	st := &cl.Status
	return cnpgView{
		phase: st.Phase, reason: st.PhaseReason,
		instances: st.Instances, readyInstances: st.ReadyInstances, currentPrimary: st.CurrentPrimary,
	}
}

// applyTo returns a copy of cl whose status fields a pass reads are v's.
func (v cnpgView) applyTo(cl *cnpgv1.Cluster) *cnpgv1.Cluster {
	out := *cl
	out.Status.Phase, out.Status.PhaseReason = v.phase, v.reason
	out.Status.Instances, out.Status.ReadyInstances, out.Status.CurrentPrimary = v.instances, v.readyInstances, v.currentPrimary
	return &out
}

// phaseSettler remembers, per PostgresCluster and in memory only, what
// passes reported of its CNPG Cluster and what they last saw. A restarted
// operator reports the first status it sees.
type phaseSettler struct {
	mu    sync.Mutex
	clock clock.PassiveClock
	byKey map[types.NamespacedName]*settling
}

// settling is one cluster's record. An episode starts when the status
// seen first differs from the one shown, and ends when what is seen has
// held still for phaseSettle.
type settling struct {
	uid         types.UID // of the CNPG Cluster: a new one starts afresh
	shown, seen cnpgView
	seenAt      time.Time // when seen was first seen
	heldSince   time.Time // start of the episode (or of its last max hold); zero: none
	flips       int       // changes seen in the episode
	healthyAt   time.Time // when becoming healthy was last reported at once
}

// cnpgHealthy is CNPG's healthy phase.
const cnpgHealthy = "Cluster in healthy state"

func newPhaseSettler(clk clock.PassiveClock) *phaseSettler {
	return &phaseSettler{clock: clk, byKey: map[types.NamespacedName]*settling{}}
}

// view returns the status to report for cl, and when to look again for
// a status held back (0: none is). A nil settler reports cl as it is.
func (s *phaseSettler) view(ctx context.Context, key types.NamespacedName, cl *cnpgv1.Cluster) (cnpgView, time.Duration) {
	obs := viewOf(cl)
	if s == nil {
		return obs, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	st := s.byKey[key]
	if st == nil || st.uid != cl.UID {
		s.byKey[key] = &settling{uid: cl.UID, shown: obs, seen: obs, seenAt: now}
		return obs, 0
	}
	st.see(obs, now)
	stable := now.Sub(st.seenAt) >= phaseSettle
	if st.seen != st.shown && st.becomesHealthy(now) {
		st.shown, st.healthyAt = st.seen, now
		st.endEpisode(ctx, key, now, "healthy")
		return st.shown, 0
	}
	if st.seen == st.shown {
		if stable && !st.heldSince.IsZero() {
			st.endEpisode(ctx, key, now, "returned")
		}
		return st.shown, 0
	}
	if stable || now.Sub(st.heldSince) >= phaseMaxHold {
		st.shown = st.seen
		if stable {
			st.endEpisode(ctx, key, now, "settled")
		} else {
			// Still changing: worth the default verbosity, at most once
			// per phaseMaxHold.
			st.logCoalesced(klog.FromContext(ctx), key, now, "still changing")
			st.heldSince, st.flips = now, 0 // the next max hold starts now
		}
		return st.shown, 0
	}
	return st.shown, min(phaseSettle-now.Sub(st.seenAt), phaseMaxHold-now.Sub(st.heldSince))
}

// see records an observation. A change starts an episode unless one is
// under way; one whose status had come back to the shown one and held
// still is over.
func (st *settling) see(obs cnpgView, now time.Time) {
	if obs == st.seen {
		return
	}
	if st.heldSince.IsZero() || st.seen == st.shown && now.Sub(st.seenAt) >= phaseSettle {
		st.heldSince, st.flips = now, 0
	}
	st.seen, st.seenAt = obs, now
	st.flips++
}

// becomesHealthy: what is seen is CNPG becoming healthy, and that was not
// reported at once within phaseMaxHold.
func (st *settling) becomesHealthy(now time.Time) bool {
	return st.seen.phase == cnpgHealthy && st.shown.phase != cnpgHealthy &&
		(st.healthyAt.IsZero() || now.Sub(st.healthyAt) >= phaseMaxHold)
}

func (st *settling) endEpisode(ctx context.Context, key types.NamespacedName, now time.Time, how string) {
	if st.flips > 1 {
		st.logCoalesced(klog.FromContext(ctx).V(2), key, now, how)
	}
	st.heldSince, st.flips = time.Time{}, 0
}

// logCoalesced says that changes of CNPG's status were not reported one
// by one: once per episode or per max hold, so it cannot flood.
func (st *settling) logCoalesced(logger klog.Logger, key types.NamespacedName, now time.Time, how string) {
	logger.Info("Coalesced changes of CNPG's status", "cluster", key, "changes", st.flips,
		"over", now.Sub(st.heldSince).Round(time.Millisecond), "outcome", how,
		"phase", st.shown.phase, "reason", st.shown.reason)
}

// forget drops a deleted cluster's record.
func (s *phaseSettler) forget(key types.NamespacedName) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byKey, key)
}
