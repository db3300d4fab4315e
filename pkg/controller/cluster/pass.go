package cluster

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// pass is one reconcile pass of one PostgresCluster: the object as read,
// the merged desired state, the snapshot, the contracts published so far
// and the status being built. Components read and write only through it.
//
// The pass holds only what every component may read. What one component
// keeps between its Reconcile and its Observe is that component's own
// state: a struct declared in the component's file and held here under
// one field named after it (provisioner, secret, monitor), written by no
// other component's files. Another component that needs some of it reads
// it through a contract or an accessor the owner declares beside the
// state (observedCNPG, appliedCNPG), never the field
// (docs/adr/0009-components-own-their-pass-state.md).
type pass struct {
	cluster   *pgv1.PostgresCluster
	want      *desired
	obs       *observation
	contracts contracts
	status    *pgv1.PostgresClusterStatus
	deps      *deps

	// facts are the Postgres facts, read at most once (postgresFacts).
	facts onceFacts
	// sql is the one connection the pass's SQL shares (postgresConn).
	sql sqlConn

	// Each component's own state (see above).
	secret      secretState      // component_secret.go
	provisioner provisionerState // component_provisioner.go
	monitor     monitorState     // component_monitor.go
	// certificates is written by certificates_*.go.
	certificates certificatesState
	// upgrade is written by upgrade*.go, before the components run.
	upgrade upgradeState
}

// Status is the status this pass builds, for the runner.
func (p *pass) Status() pipeline.Status {
	return statusOf(p.status, p.cluster.Generation)
}

// Has reports whether an earlier component published contract k.
func (p *pass) Has(k contractKey) bool { return p.contracts.has(k) }

// onceFacts are the Postgres facts of one pass and whether they were read.
type onceFacts struct {
	read  bool
	facts *facts
}

// postgresFacts reads the Postgres facts at most once per pass, and only
// when a component asks: a converged cluster's resync runs no SQL.
func (p *pass) postgresFacts(ctx context.Context) *facts {
	if !p.facts.read {
		p.facts.read = true
		p.facts.facts = p.deps.readFacts(ctx, p)
	}
	return p.facts.facts
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
