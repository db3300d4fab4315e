package cluster

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// archiveUse is one PostgresCluster's folder of an object store, as read
// from the objects setpoint wrote (its ObjectStore and CNPG Cluster).
type archiveUse struct {
	cluster  string // namespace/name of the PostgresCluster
	store    string // namespace/name of its ObjectStore
	endpoint string
	folder   string // destinationPath/serverName, without a trailing slash
	// archiving: a CNPG Cluster archives there now.
	archiving bool
	since     metav1.Time // the ObjectStore's creation
}

// otherArchiveUses are the folders of every other cluster's ObjectStore
// setpoint wrote, for the snapshot. Only gathered for a cluster with an
// object store; the cache holds only setpoint's ObjectStores.
func (c *Controller) otherArchiveUses(pc *pgv1.PostgresCluster) ([]archiveUse, error) {
	stores, err := c.objectStores.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("list object stores: %w", err)
	}
	own := naming.ObjectStore(pc.Name)
	var out []archiveUse
	for _, s := range stores {
		if s.Namespace == pc.Namespace && s.Name == own {
			continue
		}
		if u, ok := c.archiveUseOf(s); ok {
			out = append(out, u)
		}
	}
	return out, nil
}

// archiveUseOf reads whose folder s holds: the serverName the CNPG
// Cluster archiving through it names, else the one its PostgresCluster
// would use first. A store neither archives through nor a PostgresCluster
// controls (a retained store with no cluster) holds no folder in use.
func (c *Controller) archiveUseOf(s *barmanv1.ObjectStore) (archiveUse, bool) {
	name := naming.ObjectStoreCluster(s.Name)
	u := archiveUse{cluster: s.Namespace + "/" + name, store: s.Namespace + "/" + s.Name,
		endpoint: trimSlash(s.Spec.Configuration.EndpointURL), since: s.CreationTimestamp}
	server := ""
	if cl, err := c.cnpgClusters.Clusters(s.Namespace).Get(name); err == nil {
		if pl := barmanPluginOf(cl); pl != nil && pl.Parameters["barmanObjectName"] == s.Name {
			server, u.archiving = pl.Parameters["serverName"], true
		}
	}
	if server == "" {
		ref := metav1.GetControllerOfNoCopy(s)
		if ref == nil || ref.Kind != gvk.Kind {
			return u, false
		}
		pc, err := c.clusters.PostgresClusters(s.Namespace).Get(ref.Name)
		if err != nil || pc.UID != ref.UID {
			return u, false
		}
		server = firstServerName(pc)
	}
	u.folder = trimSlash(s.Spec.Configuration.DestinationPath) + "/" + server
	return u, true
}

// ownArchiveUse is this pass's cluster's folder.
func ownArchiveUse(p *pass) archiveUse {
	u := archiveUse{cluster: p.cluster.Namespace + "/" + p.cluster.Name,
		endpoint: trimSlash(p.want.ObjectStore.EndpointURL), folder: archivePath(p),
		archiving: archivesThrough(p)}
	if cur := p.obs.objectStore; cur != nil {
		u.since = cur.CreationTimestamp
	}
	return u
}

// archiveConflict is the use that holds this cluster's folder first, nil
// when there is none. Folders conflict when they are one, or one holds
// the other: barman-cloud would mix their histories or list the other's
// files as its own. The first holder is the one archiving there, then
// the older ObjectStore (a store not written yet is the newest), then the
// name: the same answer from both sides, so exactly one is refused.
func archiveConflict(p *pass) *archiveUse {
	own := ownArchiveUse(p)
	for i := range p.obs.archives {
		o := &p.obs.archives[i]
		if o.endpoint == own.endpoint && foldersOverlap(o.folder, own.folder) && holdsFirst(o, &own) {
			return o
		}
	}
	return nil
}

func foldersOverlap(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// holdsFirst reports whether a keeps the folder over b.
func holdsFirst(a, b *archiveUse) bool {
	if a.archiving != b.archiving {
		return a.archiving
	}
	switch {
	case a.since.IsZero() != b.since.IsZero():
		return b.since.IsZero()
	case !a.since.Equal(&b.since):
		return a.since.Before(&b.since)
	}
	return a.cluster < b.cluster
}

// archiveConflictError refuses the first write into a folder another
// cluster holds.
type archiveConflictError struct{ other archiveUse }

func (e *archiveConflictError) Error() string {
	return fmt.Sprintf("archive folder %q is already used by PostgresCluster %s (ObjectStore %s): two clusters must never archive in one folder; use another cluster name, or a class whose backup.objectStore keeps namespaces apart (layout Namespaced)",
		e.other.folder, e.other.cluster, e.other.store)
}

// hasObjectStore reports whether class or cluster configures an object
// store, before the two are merged.
func hasObjectStore(pc *pgv1.PostgresCluster, class *pgv1.PostgresClusterClass) bool {
	has := func(s pgv1.ClusterSettings) bool {
		return s.Backup != nil && s.Backup.ObjectStore != nil && s.Backup.ObjectStore.DestinationPath != ""
	}
	return has(pc.Spec.ClusterSettings) || (class != nil && has(class.Spec.ClusterSettings))
}
