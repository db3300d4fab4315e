package cluster

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// deps are the side-effecting collaborators of a pass.
type deps struct {
	kube      kubernetes.Interface
	pg        versioned.Interface
	recorder  record.EventRecorder
	connector *postgres.Connector
	pgTimeout time.Duration
}

var gvk = pgv1.SchemeGroupVersion.WithKind("PostgresCluster")

const typesMerge = types.MergePatchType

// Requeue intervals of expected waits.
const (
	provisionRecheck = 5 * time.Second
	externalRecheck  = time.Minute
	configureRecheck = 5 * time.Second
)

var applyOpts = metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
