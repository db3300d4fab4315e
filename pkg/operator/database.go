package operator

import (
	"context"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// runner is a controller's Run.
type runner interface {
	Run(ctx context.Context, workers int) error
}

// newDatabaseController wires the PostgresDatabase controller.
func newDatabaseController(cfg Config, kube kubernetes.Interface, pg versioned.Interface, rec record.EventRecorder,
	conn *postgres.Connector, qm *workqueue.Metrics, inf *controller.Informers) (runner, error) {
	return nil, nil
}
