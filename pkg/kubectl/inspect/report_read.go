package inspect

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// ClusterReport reads the PostgresCluster, its CNPG Cluster and poolers
// and the PostgresDatabases on it, and arranges them.
func (r Reader) ClusterReport(ctx context.Context, name string) (ClusterReport, error) {
	c, err := r.PG.PostgresV1alpha1().PostgresClusters(r.Namespace).Get(ctx, name, getOpts)
	if err != nil {
		return ClusterReport{}, fmt.Errorf("get PostgresCluster %s/%s: %w", r.Namespace, name, err)
	}
	in := ClusterInputs{Cluster: c}
	cnpg, err := r.PG.CNPGV1().Clusters(r.Namespace).Get(ctx, name, getOpts)
	if ok, err := found(err, "CNPG Cluster "+name); err != nil {
		return ClusterReport{}, err
	} else if ok {
		in.CNPG = cnpg
		if in.InstanceNames, err = r.instanceNames(ctx, name); err != nil {
			return ClusterReport{}, err
		}
	}
	for _, p := range naming.Poolers(name) {
		pl, err := r.PG.CNPGV1().Poolers(r.Namespace).Get(ctx, p, getOpts)
		if ok, err := found(err, "Pooler "+p); err != nil {
			return ClusterReport{}, err
		} else if ok {
			in.Poolers = append(in.Poolers, *pl)
		}
	}
	dbs, err := r.PG.PostgresV1alpha1().PostgresDatabases(r.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return ClusterReport{}, fmt.Errorf("list PostgresDatabases: %w", err)
	}
	in.Databases = dbs.Items
	return BuildClusterReport(in), nil
}

// instanceNames reads status.instanceNames of the CNPG Cluster from the
// raw object: setpoint's CNPG types carry only what the operator reads,
// and the operator has no use for the list.
func (r Reader) instanceNames(ctx context.Context, name string) ([]string, error) {
	raw, err := r.PG.CNPGV1().RESTClient().Get().Namespace(r.Namespace).
		Resource("clusters").Name(name).DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("get CNPG Cluster %s: %w", name, err)
	}
	var obj struct {
		Status struct {
			InstanceNames []string `json:"instanceNames"`
		} `json:"status"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("decode CNPG Cluster %s: %w", name, err)
	}
	return obj.Status.InstanceNames, nil
}
