package parity

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/client-go/kubernetes"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
)

// Mode says what a run does with the record of real CNPG.
type Mode int

const (
	// HoldToRecord: real CNPG must show exactly what it showed when the
	// record was made.
	HoldToRecord Mode = iota
	// WriteRecord: real CNPG's observations become the record.
	WriteRecord
	// StandIn: the stand-in must show what real CNPG showed, except the
	// differences listed in differences.go, which it must still have.
	StandIn
)

// Site is where the scenarios run: a namespace that setpoint (already
// running) reconciles, on a control plane whose CNPG is real or the
// stand-in.
type Site struct {
	Name      string // for messages: "real CNPG", "the stand-in"
	Kube      kubernetes.Interface
	PG        versioned.Interface
	Namespace string
	// Fit adapts a class's settings to the site: the PostgreSQL image,
	// storage, and the object store's destination and endpoint.
	Fit func(s *pgv1.ClusterSettings)
	// Connect opens a session to the cluster's primary through its -rw
	// Service, as an application there would, TLS verified against the
	// cluster's CA.
	Connect func(ctx context.Context, cluster, database, user, password string) (*pgx.Conn, error)
	// Timeout bounds each wait: for a state, and for an observation to
	// match (or, writing the record, to settle).
	Timeout time.Duration
	Mode    Mode
}
