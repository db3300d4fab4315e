package cnpgsim

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// postgresPort is the port of every CNPG Service.
const postgresPort = 5432

// ensureService creates a ClusterIP Service if it is missing. Nothing
// behind it runs (there are no Pods): clients reach the server through the
// host map instead, as the package documentation explains.
func (s *Simulator) ensureService(ctx context.Context, namespace, name, cluster string, selector map[string]string, owners []metav1.OwnerReference) error {
	if _, err := s.services.Services(namespace).Get(name); err == nil {
		return nil
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{clusterLabel: cluster}, OwnerReferences: owners},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: selector,
			Ports: []corev1.ServicePort{{
				Name: "postgres", Protocol: corev1.ProtocolTCP,
				Port: postgresPort, TargetPort: intstr.FromInt32(postgresPort),
			}},
		},
	}
	_, err := s.kube.CoreV1().Services(namespace).Create(ctx, svc, metav1.CreateOptions{FieldManager: s.opts.FieldManager})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create service %s: %w", name, err)
	}
	return nil
}

// ensureServices creates the Cluster's three Services with CNPG's
// selectors: -rw the primary, -ro the replicas, -r any instance.
func (s *Simulator) ensureServices(ctx context.Context, c *cnpgv1.Cluster) error {
	selectors := map[string]map[string]string{
		c.Name + "-rw": {clusterLabel: c.Name, "cnpg.io/instanceRole": "primary"},
		c.Name + "-ro": {clusterLabel: c.Name, "cnpg.io/instanceRole": "replica"},
		c.Name + "-r":  {clusterLabel: c.Name, "cnpg.io/podRole": "instance"},
	}
	for name, selector := range selectors {
		if err := s.ensureService(ctx, c.Namespace, name, c.Name, selector, ownedBy(c)); err != nil {
			return err
		}
	}
	return nil
}
