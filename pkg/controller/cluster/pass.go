package cluster

import (
	"context"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// pass is one reconcile pass of one PostgresCluster: the object as read,
// the merged desired state, the snapshot, the contracts published so far
// and the status being built. Components read and write only through it.
type pass struct {
	cluster   *pgv1.PostgresCluster
	want      *desired
	obs       *observation
	contracts contracts
	status    *pgv1.PostgresClusterStatus
	deps      *deps

	facts     *facts
	factsRead bool
	// conn is the connection the pass's SQL shares (postgresConn), as
	// the superuser when connSuperuser; closed when the pass ends.
	conn          *pgx.Conn
	connTarget    postgres.Target
	connSuperuser bool
	connErr       error
	connTried     bool
	// specApplied is set when this pass changed an existing CNPG Cluster.
	specApplied bool
	// loss is a CNPG Cluster lost after it was Ready (nothing is written
	// to it); recreate, one created again on request (provisioner_lost.go).
	loss *loss
	// live is the CNPG Cluster as read from the API server when the loss
	// check could not trust the cache; the snapshot keeps what it read.
	live     *liveRead
	recreate *recreation
	// superuser and cnpg are the superuser Secret and the CNPG Cluster as
	// this pass left them (the snapshot keeps what was read).
	superuser *corev1.Secret
	cnpg      *cnpgv1.Cluster
	// monitorSecret and monitorRole are the monitor's Secret and
	// DatabaseRole as this pass left them (component_monitor.go).
	monitorSecret *corev1.Secret
	monitorRole   *cnpgv1.DatabaseRole
	// certGroupErr is why the certificate group's DatabaseRole could not
	// be kept (certgroup.go); the monitor component reports it after the
	// monitor itself, which it does not hold back.
	certGroupErr error
	// retiring is our superuser Secret while access is off and the CNPG
	// Cluster still has it (superuser_retire.go).
	retiring *corev1.Secret
}

// Status is the status this pass builds, for the runner.
func (p *pass) Status() pipeline.Status {
	return statusOf(p.status, p.cluster.Generation)
}

// Has reports whether an earlier component published contract k.
func (p *pass) Has(k contractKey) bool { return p.contracts.has(k) }

// postgresFacts reads the Postgres facts at most once per pass, and only
// when a component asks: a converged cluster's resync runs no SQL.
func (p *pass) postgresFacts(ctx context.Context) *facts {
	if !p.factsRead {
		p.factsRead = true
		p.facts = p.deps.readFacts(ctx, p)
	}
	return p.facts
}

// resources is status.resources, created when status has none: several
// components each fill in the references they publish.
func (p *pass) resources() *pgv1.ClusterResources {
	if p.status.Resources == nil {
		p.status.Resources = &pgv1.ClusterResources{}
	}
	return p.status.Resources
}

// owner is the cluster as the owner of its children.
func (p *pass) owner() ownership.Owner {
	return ownerOf(p.cluster)
}

func ownerOf(pc *pgv1.PostgresCluster) ownership.Owner {
	return ownership.Owner{Kind: gvk.Kind, Name: pc.Name, UID: pc.UID, Cluster: pc.Name}
}

// claim proves, right before a write, that the child may be written: see
// ownership.Claim. An adoption is announced with an Event.
func claim[T any, PT interface {
	*T
	metav1.Object
}](ctx context.Context, p *pass, kind string, cached PT, client ownership.GetPatcher[PT], name string) (PT, error) {
	cur, adopted, err := ownership.Claim(ctx, p.owner(), ownership.OwnerRef(p.cluster, gvk), kind, cached, client, name, fieldManager)
	if adopted {
		p.deps.recorder.Eventf(p.cluster, corev1.EventTypeNormal, pgv1.EventAdopted, "Adopted retained %s %s", kind, name)
	}
	return cur, err
}

// claimCached is claim for the kinds our informers cache in full (the CNPG
// ones): there the cache can answer, so a child it does not hold is
// absent without asking the API server — one GET less per child created.
// (Secrets and ConfigMaps are cached only when labelled ours: claim asks.)
func claimCached[T any, PT interface {
	*T
	metav1.Object
}](ctx context.Context, p *pass, kind string, cached PT, client ownership.GetPatcher[PT], name string) (PT, error) {
	if cached == nil {
		return nil, nil
	}
	return claim(ctx, p, kind, cached, client, name)
}

// name helpers: children have deterministic names, so a stale cache can
// never lead to a second copy.
func (p *pass) name(suffix string) string { return p.cluster.Name + suffix }

// liveRead is one read of the CNPG Cluster from the API server; cnpg is
// nil when there was none.
type liveRead struct{ cnpg *cnpgv1.Cluster }

// observedCNPG is the CNPG Cluster as this pass knows it: read live when
// the loss check had to, else the snapshot's.
func (p *pass) observedCNPG() *cnpgv1.Cluster {
	if p.live != nil {
		return p.live.cnpg
	}
	return p.obs.cnpg
}
