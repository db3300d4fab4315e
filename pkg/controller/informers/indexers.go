package informers

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Index names.
const (
	// ByClusterRef indexes PostgresDatabases by the namespace of their
	// cluster (spec.clusterRef.namespace, or their own)/spec.clusterRef.name.
	ByClusterRef = "byClusterRef"
	// ByClass indexes PostgresClusters by spec.class.
	ByClass = "byClass"
	// ByChildStem indexes PostgresDatabases by namespace/the stem of each
	// database's children's names (naming.Database(...).CNPG): two objects on one
	// stem would share children.
	ByChildStem = "byChildStem"
	// ByDatabaseLabel indexes CNPG Databases by the namespace of the
	// PostgresDatabase their ownership.DatabaseLabel names (their own, or
	// the one ownership.DatabaseNamespaceLabel names)/its name.
	ByDatabaseLabel = "byDatabaseLabel"
	// ByRoleOnCluster indexes CNPG DatabaseRoles by
	// namespace/spec.cluster.name/the stem of spec.name (roleOnClusterKey):
	// the objects that manage one database's roles; RolesOnCluster picks
	// those of one role.
	ByRoleOnCluster = "byRoleOnCluster"
)

// AddIndexers registers the indexers the routing needs. Call before the
// informers start.
func (i *Informers) AddIndexers() error {
	pg := i.Setpoint.Postgres().V1alpha1()
	if err := pg.PostgresDatabases().Informer().AddIndexers(cache.Indexers{ByClusterRef: indexByClusterRef}); err != nil {
		return fmt.Errorf("add %s indexer: %w", ByClusterRef, err)
	}
	if err := pg.PostgresClusters().Informer().AddIndexers(cache.Indexers{ByClass: indexByClass}); err != nil {
		return fmt.Errorf("add %s indexer: %w", ByClass, err)
	}
	// A pass looks up the few objects these name instead of listing the
	// namespace: a list per pass makes convergence quadratic in the
	// number of PostgresDatabases (the bench's cost curve showed it:
	// docs/benchmarks/history.md).
	if err := pg.PostgresDatabases().Informer().AddIndexers(cache.Indexers{ByChildStem: indexByChildStem}); err != nil {
		return fmt.Errorf("add %s indexer: %w", ByChildStem, err)
	}
	if err := i.Setpoint.CNPG().V1().Databases().Informer().AddIndexers(cache.Indexers{ByDatabaseLabel: indexByDatabaseLabel}); err != nil {
		return fmt.Errorf("add %s indexer: %w", ByDatabaseLabel, err)
	}
	if err := i.Setpoint.CNPG().V1().DatabaseRoles().Informer().AddIndexers(cache.Indexers{ByRoleOnCluster: indexByRoleOnCluster}); err != nil {
		return fmt.Errorf("add %s indexer: %w", ByRoleOnCluster, err)
	}
	return nil
}

// An index keeps a set of object keys per index key, and a set is a map:
// with one key per role, the DatabaseRoles' sets were the largest part of
// the indexes at 1,000 databases (a map each for 2,800 roles). The three
// roles of a database (<db>_admin, _rw, _ro) share a key instead: the
// role's name without those suffixes. Any name maps to one key, so a
// foreign DatabaseRole of the same role is found all the same.
var roleSuffixes = []string{"_admin", "_rw", "_ro"}

// roleOnClusterKey is the ByRoleOnCluster key of role on cluster.
func roleOnClusterKey(namespace, cluster, role string) string {
	for _, s := range roleSuffixes {
		if stem, ok := strings.CutSuffix(role, s); ok {
			role = stem
			break
		}
	}
	return namespace + "/" + cluster + "/" + role
}

func indexByRoleOnCluster(obj any) ([]string, error) {
	r, ok := obj.(*cnpgv1.DatabaseRole)
	if !ok {
		return nil, nil
	}
	return []string{roleOnClusterKey(r.Namespace, r.Spec.Cluster.Name, r.Spec.Name)}, nil
}

// RolesOnCluster are the cached DatabaseRoles in namespace that manage
// role on cluster (ByRoleOnCluster).
func RolesOnCluster(indexer cache.Indexer, namespace, cluster, role string) ([]*cnpgv1.DatabaseRole, error) {
	objs, err := indexer.ByIndex(ByRoleOnCluster, roleOnClusterKey(namespace, cluster, role))
	if err != nil {
		return nil, fmt.Errorf("look up DatabaseRoles of role %s: %w", role, err)
	}
	var out []*cnpgv1.DatabaseRole
	for _, o := range objs {
		if r, ok := o.(*cnpgv1.DatabaseRole); ok && r.Spec.Name == role {
			out = append(out, r)
		}
	}
	return out, nil
}

func indexByChildStem(obj any) ([]string, error) {
	db, ok := obj.(*pgv1.PostgresDatabase)
	if !ok {
		return nil, nil
	}
	out := make([]string, 0, len(db.Spec.Databases))
	for _, d := range db.Spec.Databases {
		out = append(out, db.Namespace+"/"+naming.Database(db.Name, d.Name).CNPG)
	}
	return out, nil
}

func indexByDatabaseLabel(obj any) ([]string, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, nil
	}
	owner, ok := m.GetLabels()[ownership.DatabaseLabel]
	if !ok {
		return nil, nil
	}
	// A tenant's object in its cluster's namespace names the tenant's
	// namespace (ownership.DatabaseNamespaceLabel): the key is the
	// PostgresDatabase's, wherever the object lives.
	ns := m.GetNamespace()
	if tenant := m.GetLabels()[ownership.DatabaseNamespaceLabel]; tenant != "" {
		ns = tenant
	}
	return []string{ns + "/" + owner}, nil
}

func indexByClusterRef(obj any) ([]string, error) {
	db, ok := obj.(*pgv1.PostgresDatabase)
	if !ok {
		return nil, nil
	}
	return []string{db.Spec.ClusterRef.NamespaceOr(db.Namespace) + "/" + db.Spec.ClusterRef.Name}, nil
}

func indexByClass(obj any) ([]string, error) {
	c, ok := obj.(*pgv1.PostgresCluster)
	if !ok {
		return nil, nil
	}
	return []string{c.Spec.Class}, nil
}

// ClustersOfClass returns the keys of the PostgresClusters using a class.
func ClustersOfClass(indexer cache.Indexer, class string) []workqueue.Key {
	objs, err := indexer.ByIndex(ByClass, class)
	if err != nil {
		return nil
	}
	keys := make([]workqueue.Key, 0, len(objs))
	for _, o := range objs {
		if c, ok := o.(*pgv1.PostgresCluster); ok {
			keys = append(keys, KeyOf(c))
		}
	}
	return keys
}

// ListDatabasesOf lists the PostgresDatabases on a cluster from the cache.
func ListDatabasesOf(indexer cache.Indexer, namespace, name string) []*pgv1.PostgresDatabase {
	objs, err := indexer.ByIndex(ByClusterRef, namespace+"/"+name)
	if err != nil {
		return nil
	}
	out := make([]*pgv1.PostgresDatabase, 0, len(objs))
	for _, o := range objs {
		if db, ok := o.(*pgv1.PostgresDatabase); ok {
			out = append(out, db)
		}
	}
	return out
}
