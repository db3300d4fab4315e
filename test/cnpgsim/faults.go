package cnpgsim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"k8s.io/client-go/tools/cache"
)

// faults are what a test injected for one Cluster. They may be set before
// the Cluster exists and are forgotten when it is deleted.
type faults struct {
	stopped      bool
	phase        string
	failRoles    map[string]string
	healthyDelay *time.Duration
	// stallBackups: backups hang once started (backup_stall.go).
	stallBackups bool
	// failMajorUpgrade: the next major-upgrade Job ends Failed
	// (major_upgrade.go).
	failMajorUpgrade bool
}

func (f *faults) clone() faults {
	c := *f
	c.failRoles = maps.Clone(f.failRoles)
	return c
}

// faultsFor returns a copy of the Cluster's faults.
func (s *Simulator) faultsFor(key cache.ObjectName) faults {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.faults[key]; f != nil {
		return f.clone()
	}
	return faults{}
}

func (s *Simulator) editFaults(namespace, name string, edit func(*faults)) cache.ObjectName {
	key := cache.ObjectName{Namespace: namespace, Name: name}
	s.mu.Lock()
	f := s.faults[key]
	if f == nil {
		f = &faults{}
		s.faults[key] = f
	}
	edit(f)
	s.mu.Unlock()
	s.clusterLoop.add(key)
	return key
}

// ErrSharedBackend is returned by faults that would hit every Cluster of a
// shared server.
var ErrSharedBackend = errors.New("not supported in shared-backend mode: the server serves every Cluster")

// StopServer stops the Cluster's Postgres server, as a crash of the
// primary would, and keeps it stopped: the Cluster reports "Failing over"
// with no ready instance until StartServer. It returns once the server is
// down.
func (s *Simulator) StopServer(ctx context.Context, namespace, name string) error {
	if s.opts.SharedBackend {
		return ErrSharedBackend
	}
	key := s.editFaults(namespace, name, func(f *faults) { f.stopped = true })
	inst := s.instance(key)
	if inst == nil {
		return nil
	}
	inst.mu.Lock()
	defer inst.mu.Unlock()
	inst.backend.srv.stop()
	return nil
}

// StartServer undoes StopServer and returns once the server accepts
// connections again; the status turns healthy on the next sync.
func (s *Simulator) StartServer(ctx context.Context, namespace, name string) error {
	if s.opts.SharedBackend {
		return ErrSharedBackend
	}
	key := s.editFaults(namespace, name, func(f *faults) { f.stopped = false })
	inst := s.instance(key)
	if inst == nil {
		return nil
	}
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if err := inst.backend.srv.start(ctx); err != nil {
		return fmt.Errorf("start server of %s: %w", key, err)
	}
	inst.readyAt = time.Now()
	return nil
}

// ForcePhase makes the Cluster report phase (with Ready False unless it is
// the healthy phase) while its server keeps running; "" clears it.
func (s *Simulator) ForcePhase(namespace, name, phase string) {
	s.editFaults(namespace, name, func(f *faults) { f.phase = phase })
}

// FailRole makes the managed role fail to reconcile with message, as a
// Postgres error would: it is not touched and is reported in
// cannotReconcile and pending-reconciliation.
func (s *Simulator) FailRole(namespace, name, role, message string) {
	s.editFaults(namespace, name, func(f *faults) {
		if f.failRoles == nil {
			f.failRoles = map[string]string{}
		}
		f.failRoles[role] = message
	})
}

// ClearRoleFailure undoes FailRole.
func (s *Simulator) ClearRoleFailure(namespace, name, role string) {
	s.editFaults(namespace, name, func(f *faults) { delete(f.failRoles, role) })
}

// SetHealthyDelay overrides Options.HealthyDelay for one Cluster: after its
// server starts it stays in "Setting up primary" that long. Set it before
// creating the Cluster (or before StartServer) to delay that start.
func (s *Simulator) SetHealthyDelay(namespace, name string, d time.Duration) {
	s.editFaults(namespace, name, func(f *faults) { f.healthyDelay = &d })
}

func (s *Simulator) healthyDelay(f faults) time.Duration {
	if f.healthyDelay != nil {
		return *f.healthyDelay
	}
	return s.opts.HealthyDelay
}

// RotateCA replaces the Cluster's CA, as CNPG does when its CA expires or
// is renewed: a new authority signs a new server certificate, the server
// reloads it, and `<name>-ca` is updated. Clients holding the old CA then
// fail verification until they read the Secret again. It returns at once;
// the Cluster's next sync (queued here) loads the certificate and updates
// the Secret.
func (s *Simulator) RotateCA(ctx context.Context, namespace, name string) error {
	if s.opts.SharedBackend {
		return ErrSharedBackend
	}
	key := cache.ObjectName{Namespace: namespace, Name: name}
	inst := s.instance(key)
	if inst == nil {
		return fmt.Errorf("rotate CA of %s: no such cluster", key)
	}
	ca, err := newAuthority(name + "-ca")
	if err != nil {
		return fmt.Errorf("rotate CA of %s: %w", key, err)
	}
	inst.mu.Lock()
	b := inst.backend
	b.mu.Lock()
	b.ca, b.sans = ca, "" // the next converge issues and loads a new certificate
	b.mu.Unlock()
	inst.mu.Unlock()
	s.clusterLoop.add(key)
	return nil
}

// FailMajorUpgrade makes the Cluster's next major-upgrade Job fail, as a
// pg_upgrade that refuses the data (an extension the new image lacks)
// does: the Job ends Failed (BackoffLimitExceeded) and, as with CNPG,
// nothing is retried (backoffLimit 0): the Cluster stays in "Upgrading
// Postgres major version" with every instance down until its spec asks
// for the old major again (a rollback). It holds for one Job; it may be
// set before the upgrade is asked for.
func (s *Simulator) FailMajorUpgrade(namespace, name string) {
	s.editFaults(namespace, name, func(f *faults) { f.failMajorUpgrade = true })
}
