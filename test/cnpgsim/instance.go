package cnpgsim

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// instance is the Simulator's memory of one Cluster: which backend serves
// it and since when. Everything else is read back from the API server and
// from Postgres on each sync.
type instance struct {
	mu      sync.Mutex // serialises syncs with fault injection
	key     cache.ObjectName
	uid     types.UID
	backend *backend
	readyAt time.Time // when the server last (re)started for this Cluster
	// recovering is set while a restored server replays WAL (until it
	// promotes); recoveryFailure is why a recovery cannot succeed, kept so
	// it is reported and not retried.
	recovering      bool
	recoveryFailure string
	// recoveryJob is set once CNPG would have created the full-recovery
	// Job, and with it the first instance's PVC (instanceCreated).
	recoveryJob bool
	// jobLog is recoveryFailure for RecoveryLog, which must not wait for
	// a sync (one may replay WAL for minutes).
	jobLog atomic.Pointer[string]
	// volumes are the data volumes' size and resize (storage.go).
	volumes volumes
	// passwords remembers, per managed role, what its password was last
	// set from (password_state.go).
	passwords map[string]passwordState
	// roles serialises the Cluster's DatabaseRoles, which CNPG's
	// instance manager reconciles one at a time.
	roles turnstile
	// appliedRoles is what this process applied, per role name
	// (databaserole_duplicate.go); guarded by roles.
	appliedRoles appliedRoles
	// secrets are the password Secrets the instance may read
	// (databaserole_rbac.go).
	secrets secretGrants
	// archiving is the archive the server's archive_command writes to, as
	// the Cluster's last sync configured it (nil: none); firstWAL is set
	// once the first WAL file was switched out (archive_outcome.go).
	archiving atomic.Pointer[archive]
	firstWAL  atomic.Bool
	// upgrade is the major upgrade in flight, or its aftermath
	// (major_upgrade.go); serials are the instances' serials, once a
	// major upgrade re-created the replicas (serials.go).
	upgrade upgradeState
	serials []int
}

func (s *Simulator) instance(key cache.ObjectName) *instance {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.instances[key]
}

// instanceFor finds or creates the Cluster's instance. A Cluster recreated
// under the same name gets a fresh server, as it would get fresh volumes.
func (s *Simulator) instanceFor(ctx context.Context, cluster *cnpgv1.Cluster) (*instance, error) {
	key := cache.ObjectName{Namespace: cluster.Namespace, Name: cluster.Name}
	if old := s.instance(key); old != nil {
		if old.uid == cluster.UID {
			return old, nil
		}
		s.teardown(ctx, key)
	}
	b, err := s.backendFor(cluster)
	if err != nil {
		return nil, err
	}
	inst := &instance{key: key, uid: cluster.UID, backend: b}
	s.mu.Lock()
	defer s.mu.Unlock()
	if existing := s.instances[key]; existing != nil {
		// Another sync won the race; both saw the same Cluster.
		return existing, nil
	}
	s.instances[key] = inst
	return inst, nil
}

func (s *Simulator) backendFor(cluster *cnpgv1.Cluster) (*backend, error) {
	if s.opts.SharedBackend {
		return s.sharedBackend()
	}
	ca, err := s.clusterCA(cluster)
	if err != nil {
		return nil, err
	}
	key := cache.ObjectName{Namespace: cluster.Namespace, Name: cluster.Name}
	return s.newBackend(ca, false, func() { s.clusterLoop.add(key) })
}

func (s *Simulator) sharedBackend() (*backend, error) {
	s.mu.Lock()
	b := s.shared
	s.mu.Unlock()
	if b != nil {
		return b, nil
	}
	ca, err := newAuthority("cnpgsim shared backend CA")
	if err != nil {
		return nil, err
	}
	b, err = s.newBackend(ca, true, s.enqueueAllClusters)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shared == nil {
		s.shared = b
	}
	return s.shared, nil
}

// clusterCA reuses the CA in `<name>-ca` when there is one, so clients
// that already trust it keep working; otherwise it makes a new one.
func (s *Simulator) clusterCA(cluster *cnpgv1.Cluster) (*authority, error) {
	secret, err := s.secrets.Secrets(cluster.Namespace).Get(caSecretName(cluster.Name))
	if err == nil {
		if ca, perr := parseAuthority(secret.Data[caCertKey], secret.Data[caKeyKey]); perr == nil {
			return ca, nil
		}
	}
	return newAuthority(cluster.Name)
}

// teardown stops and removes the Cluster's server (unless shared), then
// forgets it — so an empty Addr means the server is gone — drops its
// host-map entries and forgets its faults.
func (s *Simulator) teardown(ctx context.Context, key cache.ObjectName) {
	logger := klog.FromContext(ctx)
	inst := s.instance(key)
	if inst != nil && !inst.backend.shared {
		inst.mu.Lock()
		inst.backend.destroy(logger)
		inst.mu.Unlock()
		logger.Info("Removed Postgres server of deleted Cluster", "cluster", key.String())
	}
	s.mu.Lock()
	if inst != nil && s.instances[key] == inst {
		delete(s.instances, key)
		// Faults set for a Cluster not created yet must survive.
		delete(s.faults, key)
	}
	s.mu.Unlock()
	if err := s.hostMap.set(key, nil); err != nil {
		logger.Error(err, "Update host map")
	}
}

// enqueueAllClusters looks at every Cluster again: the shared server
// serves them all.
func (s *Simulator) enqueueAllClusters() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key := range s.instances {
		s.clusterLoop.add(key)
	}
}
