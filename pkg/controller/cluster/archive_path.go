package cluster

import (
	"strings"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// archiveRoot is the destinationPath of the cluster's ObjectStore: the
// folder its serverName folder sits in. With the Namespaced layout (the
// default) it is <destinationPath>/<namespace>, so that clusters of one
// name in two namespaces never share a folder, a restore's source is
// looked up in its own namespace only, and a platform can scope bucket
// credentials per namespace by prefix. With the Shared layout it is the
// class's destinationPath itself.
//
// A cluster that already archives keeps its folder (see keptArchiveRoot):
// moving a running cluster would split its backup history.
func archiveRoot(p *pass) string {
	want := p.want.ObjectStore
	base := trimSlash(want.DestinationPath)
	if kept := keptArchiveRoot(p, base); kept != "" {
		return kept
	}
	if want.Layout == pgv1.ArchiveLayoutShared {
		return base
	}
	return base + "/" + p.cluster.Namespace
}

// keptArchiveRoot is the destinationPath of the observed ObjectStore when
// a CNPG Cluster setpoint owns (or kept for this cluster) archives through
// it and the path is one of the two this class's store can give: the
// layout changed under it, or it started before namespaced folders. It
// reads what setpoint wrote, never status. "" when nothing archives yet
// or the class moved the store elsewhere (that move is the class's edit).
func keptArchiveRoot(p *pass, base string) string {
	cur := p.obs.objectStore
	if cur == nil || p.owner().Judge(cur) == ownership.NotOurs {
		return ""
	}
	path := cur.Spec.Configuration.DestinationPath
	if !archivesThrough(p) && !archivedThrough(p, path) {
		return ""
	}
	if t := trimSlash(path); t == base || t == base+"/"+p.cluster.Namespace {
		return path
	}
	return ""
}

// archivedThrough reports whether the connection ConfigMap setpoint wrote
// records that the cluster's CNPG Cluster archived under root: a CNPG
// Cluster lost (provisioner_lost.go) keeps its folder's root, so that a
// recovery from its latest backup finds it and the new cluster archives
// beside it.
func archivedThrough(p *pass, root string) bool {
	cm := p.obs.configMap
	return cm != nil && ownership.IsControlledBy(cm, p.cluster.UID) && cm.Annotations[archiveRootAnnotation] == root
}

// archivesThrough reports whether the observed CNPG Cluster, when setpoint
// may take it as its own, archives through this cluster's ObjectStore.
func archivesThrough(p *pass) bool {
	cur := p.observedCNPG()
	if cur == nil || p.owner().Judge(cur) == ownership.NotOurs {
		return false
	}
	pl := barmanPluginOf(cur)
	return pl != nil && pl.Parameters["barmanObjectName"] == naming.ObjectStore(p.cluster.Name)
}

// archivePath is the folder the cluster archives in.
func archivePath(p *pass) string {
	return trimSlash(archiveRoot(p)) + "/" + archiveServerName(p)
}

func trimSlash(path string) string {
	return strings.TrimRight(path, "/")
}
