package cluster

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// contractKey names an object a component publishes for later ones, and
// the reason (declared in the API package, like every reason users can
// see) a component waiting for it shows.
type contractKey = pipeline.Contract

var (
	contractSecret      = contractKey{Name: "Secret", WaitingReason: pgv1.ReasonWaitingForSecret}
	contractCNPGCluster = contractKey{Name: "CNPGCluster", WaitingReason: pgv1.ReasonWaitingForCNPGCluster}
	// contractCertificates: the client CA and the replication certificate
	// the CNPG Cluster names exist (certificates.go).
	contractCertificates = contractKey{Name: "Certificates", WaitingReason: pgv1.ReasonWaitingForCertificates}
)

// contracts are the live objects published during one pass.
type contracts struct {
	// Secret is the superuser Secret. The Secret contract is the
	// superuser decision: this Secret while superuser access is on, or
	// NoSuperuser while it is off (then there is none, and none is needed).
	Secret      *corev1.Secret
	NoSuperuser bool
	CNPGCluster *cnpgv1.Cluster
	// Certificates is set once the client CA and the replication
	// certificate are in place.
	Certificates bool
}

func (c *contracts) has(k contractKey) bool {
	switch k {
	case contractSecret:
		return c.Secret != nil || c.NoSuperuser
	case contractCNPGCluster:
		return c.CNPGCluster != nil
	case contractCertificates:
		return c.Certificates
	}
	return false
}

// health is where a component stands after Observe.
type health = pipeline.Health

var (
	ready   = pipeline.Ready
	waiting = pipeline.Waiting
)

// failed is Failed with no recheck: the component's input changes by an
// event we watch (see failedWait for one that does not).
func failed(reason, message string) health { return pipeline.Failed(reason, message, 0) }

// component is one step of the pipeline
// (docs/adr/0002-component-pipelines.md): the shared shape
// (pipeline.Component: Reconcile, then Observe) with the contracts it
// declares. Besides the pass, a component may own its part of the
// snapshot (watcher, watch.go) and what happens to its children when the
// cluster goes (teardown.go); one that can start ahead of its turn
// implements pipeline.Preparer.
type component interface {
	pipeline.Component[*pass]
	Requires() []contractKey
	Provides() []contractKey
}

// stage runs a component as a stage of the shared runner: the shared
// adapter (pipeline.ComponentStage: Reconcile, then Observe; Prepare when
// the component has one) around the cluster's component, whose contracts
// it declares.
type stage struct{ component }

func (s stage) Run(ctx context.Context, p *pass) health {
	return pipeline.ComponentStage[*pass]{Component: s.component}.Run(ctx, p)
}

func (s stage) Prepare(ctx context.Context, p *pass) error {
	return pipeline.ComponentStage[*pass]{Component: s.component}.Prepare(ctx, p)
}

// stages is the ordered component list
// (docs/adr/0002-component-pipelines.md).
func stages() []pipeline.Stage[*pass] {
	var out []pipeline.Stage[*pass]
	for _, c := range components() {
		out = append(out, stage{c})
	}
	return out
}

func components() []component {
	return []component{
		secretComponent{}, objectStoreComponent{}, certificatesComponent{}, settledProvisioner{}, monitorComponent{}, poolerComponent{},
		backupComponent{}, configMapComponent{}, podMonitorComponent{}, metricsServiceComponent{},
	}
}
