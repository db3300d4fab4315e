package cnpgsim

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"k8s.io/klog/v2"
)

// backend is a Postgres server with the CA that signs its certificate:
// one per Cluster, or one for all Clusters in shared-backend mode.
type backend struct {
	srv    *server
	ca     *authority
	shared bool

	mu   sync.Mutex // serialises start-up and configuration changes
	sans string     // DNS names in the installed certificate, joined
	// clientCA is the installed bundle client certificates are verified
	// with (client_ca.go); clientCAs each Cluster's share of it.
	clientCA  []byte
	clientCAs map[string][]byte
}

// trust is the bundle the server verifies client certificates with once
// cluster's client CA is clientCA: that, on a Cluster's own server; on a
// shared one, its own CA and every Cluster's, so each keeps its logins.
func (b *backend) trust(cluster string, clientCA []byte) []byte {
	if !b.shared {
		return clientCA
	}
	if b.clientCAs == nil {
		b.clientCAs = map[string][]byte{}
	}
	b.clientCAs[cluster] = clientCA
	out := slices.Clone(b.ca.certPEM)
	for _, k := range slices.Sorted(maps.Keys(b.clientCAs)) {
		if ca := b.clientCAs[k]; string(ca) != string(b.ca.certPEM) {
			out = append(out, ca...)
		}
	}
	return out
}

// newBackend allocates a server directory and port; nothing starts yet.
func (s *Simulator) newBackend(ca *authority, shared bool, onCrash func()) (*backend, error) {
	s.mu.Lock()
	s.nextID++
	// Short names: the Unix socket path must stay under 108 bytes.
	dir := filepath.Join(s.dir, strconv.Itoa(s.nextID))
	s.mu.Unlock()
	srv, err := newServer(s.opts.PostgresBinDir, dir, s.owner)
	if err != nil {
		return nil, err
	}
	srv.onCrash = onCrash
	if shared {
		srv.kept.max = keptShared
	}
	return &backend{srv: srv, ca: ca, shared: shared}, nil
}

// converge brings the server to the wanted access policy and certificate,
// initialising and starting it when needed. It reports whether it started
// the server.
func (b *backend) converge(ctx context.Context, hba hbaConfig, sans []string, cluster string, clientCA []byte) (started bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fresh := false
	if !b.srv.initialized() {
		if err := b.srv.initdb(ctx); err != nil {
			return false, err
		}
		maxConn := 100
		if b.shared {
			maxConn = 500
		}
		if err := b.srv.writeBaseConfig(maxConn, !b.shared); err != nil {
			return false, err
		}
		if err := b.srv.owner.writeFile(filepath.Join(b.srv.dataDir(), emptyArchiveCheck), nil); err != nil {
			return false, err
		}
		fresh = true
	}
	hbaChanged, err := b.srv.writeHBA(hba)
	if err != nil {
		return false, err
	}
	certChanged, err := b.ensureCert(sans, b.trust(cluster, clientCA))
	if err != nil {
		return false, err
	}
	if b.srv.running() {
		if hbaChanged || certChanged {
			return false, b.srv.reload(ctx)
		}
		return false, nil
	}
	if err := b.srv.start(ctx); err != nil {
		return false, err
	}
	if fresh {
		if err := b.srv.createReservedRoles(ctx); err != nil {
			return true, err
		}
	}
	return true, nil
}

// ensureCert issues the server certificate for sans and installs it with
// clientCA, the bundle client certificates are verified with.
func (b *backend) ensureCert(sans []string, clientCA []byte) (bool, error) {
	joined := strings.Join(sans, ",")
	if joined == b.sans && string(clientCA) == string(b.clientCA) {
		return false, nil
	}
	certPEM, keyPEM, err := b.ca.issueServer(sans)
	if err != nil {
		return false, err
	}
	if _, err := b.srv.writeCert(clientCA, certPEM, keyPEM); err != nil {
		return false, err
	}
	b.sans, b.clientCA = joined, clientCA
	return true, nil
}

func (b *backend) destroy(logger klog.Logger) {
	if err := b.srv.destroy(); err != nil {
		logger.Error(err, "Remove Postgres server", "dir", b.srv.dir)
	}
}

// createReservedRoles adds the roles every CNPG instance has besides
// postgres, so that they show up (as reserved) where clients look.
func (s *server) createReservedRoles(ctx context.Context) error {
	return s.withConn(ctx, "postgres", func(ctx context.Context, conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, "CREATE ROLE "+ident("streaming_replica")+" LOGIN REPLICATION"); err != nil {
			return fmt.Errorf("create streaming_replica: %w", err)
		}
		return nil
	})
}

// clusterHosts are the DNS names of a Cluster's three Services in every
// form a client inside Kubernetes may use.
func clusterHosts(namespace, name string) []string {
	var hosts []string
	for _, svc := range []string{name + "-rw", name + "-ro", name + "-r"} {
		hosts = append(hosts, serviceHosts(namespace, svc)...)
	}
	return hosts
}

func serviceHosts(namespace, svc string) []string {
	return []string{
		svc,
		svc + "." + namespace,
		svc + "." + namespace + ".svc",
		svc + "." + namespace + ".svc.cluster.local",
	}
}

// sharedSANs covers every Service of every namespace with a Cluster: one
// certificate must serve all of them, and naming each would make it grow
// with every Cluster.
func sharedSANs(namespaces []string) []string {
	slices.Sort(namespaces)
	namespaces = slices.Compact(namespaces)
	sans := []string{"cnpgsim-shared"}
	for _, ns := range namespaces {
		sans = append(sans, "*."+ns, "*."+ns+".svc", "*."+ns+".svc.cluster.local")
	}
	return sans
}
