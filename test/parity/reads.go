package parity

import (
	"context"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// The reads of the observations: each object's status as setpoint's
// typed CNPG subset decodes it, normalized.

func (r *run) readPostgresCluster(name string) func(ctx context.Context) (Value, error) {
	return func(ctx context.Context) (Value, error) {
		c, err := r.site.PG.PostgresV1alpha1().PostgresClusters(r.site.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		v := Conclusion(c.Status.Phase, c.Generation, c.Status.ObservedGeneration, c.Status.Conditions).(map[string]any)
		for key, part := range map[string]any{"backupStatus": c.Status.BackupStatus, "restoredFrom": c.Status.RestoredFrom} {
			if reflect.ValueOf(part).IsNil() {
				continue
			}
			if v[key], err = Normalize(part, c.Generation); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
}

func (r *run) readCluster(name string) func(ctx context.Context) (Value, error) {
	return func(ctx context.Context) (Value, error) {
		c, err := r.site.PG.CNPGV1().Clusters(r.site.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return Normalize(c.Status, c.Generation)
	}
}

func (r *run) readDatabases(ctx context.Context) (Value, error) {
	list, err := r.site.PG.CNPGV1().Databases(r.site.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return normalizeEach(list.Items, func(d *cnpgv1.Database) (string, any, int64) { return d.Name, d.Status, d.Generation })
}

func (r *run) readDatabaseRoles(ctx context.Context) (Value, error) {
	list, err := r.site.PG.CNPGV1().DatabaseRoles(r.site.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return normalizeEach(list.Items, func(d *cnpgv1.DatabaseRole) (string, any, int64) { return d.Name, d.Status, d.Generation })
}

// normalizeEach is a list's statuses by object name.
func normalizeEach[T any](items []T, each func(*T) (name string, status any, generation int64)) (Value, error) {
	out := make(map[string]any, len(items))
	for i := range items {
		name, status, generation := each(&items[i])
		v, err := Normalize(status, generation)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

// The CNPG kinds a step writes itself, to read CNPG's verdict on them.
const (
	kindRole     = "DatabaseRole"
	kindDatabase = "Database"
)

// cnpgState is a DatabaseRole's or Database's status, its verdict and its
// generation.
type cnpgState struct {
	status     any
	applied    *bool
	generation int64
}

func (r *run) cnpgStatus(ctx context.Context, kind, name string) (cnpgState, error) {
	if kind == kindRole {
		d, err := r.site.PG.CNPGV1().DatabaseRoles(r.site.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return cnpgState{}, err
		}
		return cnpgState{d.Status, d.Status.Applied, d.Generation}, nil
	}
	d, err := r.site.PG.CNPGV1().Databases(r.site.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return cnpgState{}, err
	}
	return cnpgState{d.Status, d.Status.Applied, d.Generation}, nil
}

// normalized is the read of one object's normalized status.
func (r *run) normalized(kind, name string) func(ctx context.Context) (Value, error) {
	return func(ctx context.Context) (Value, error) {
		st, err := r.cnpgStatus(ctx, kind, name)
		if err != nil {
			return nil, err
		}
		return Normalize(st.status, st.generation)
	}
}

// answered is a wait for CNPG's first verdict on an object: its
// status.applied set, either way.
func (r *run) answered(kind, name string) func(ctx context.Context) (bool, string, error) {
	return func(ctx context.Context) (bool, string, error) {
		st, err := r.cnpgStatus(ctx, kind, name)
		if err != nil {
			return false, "", err
		}
		return st.applied != nil, "no status.applied yet", nil
	}
}

func (r *run) readObjectStore(ctx context.Context) (Value, error) {
	s, err := r.site.PG.BarmanCloudV1().ObjectStores(r.site.Namespace).Get(ctx, naming.ObjectStore(clusterName), metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return Normalize(s.Status, s.Generation)
}
