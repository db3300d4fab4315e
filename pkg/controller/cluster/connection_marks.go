package cluster

import (
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// The connection ConfigMap is written only once the CNPG Cluster is Ready
// (the pipeline stops at the first component that is not). So a ConfigMap
// controlled by the PostgresCluster is setpoint's own record that the
// cluster had been Ready — with data an application may have written —
// and these annotations say which CNPG Cluster that was and where it
// archived, for the PostgresCluster to recognise its loss and to recover
// from its folder (provisioner_lost.go). Status could say the same, but a
// user can edit status; these are read from what setpoint wrote.
const (
	provisionerUIDAnnotation = "postgres.setpoint.dev/provisioner-uid"
	archiveServerAnnotation  = "postgres.setpoint.dev/archive-server-name"
	archiveRootAnnotation    = "postgres.setpoint.dev/archive-root"
)

var connectionMarkKeys = []string{provisionerUIDAnnotation, archiveServerAnnotation, archiveRootAnnotation}

// connectionMarks are the annotations of the connection ConfigMap for the
// CNPG Cluster this pass published.
func connectionMarks(p *pass) map[string]string {
	cl := p.contracts.CNPGCluster
	m := map[string]string{provisionerUIDAnnotation: string(cl.UID)}
	server := pluginServerName(cl)
	if server == "" {
		return m
	}
	m[archiveServerAnnotation] = server
	if os := p.obs.objectStore; os != nil && ownership.IsControlledBy(os, p.cluster.UID) {
		m[archiveRootAnnotation] = os.Spec.Configuration.DestinationPath
	}
	return m
}

// marksMatch: cm carries exactly the marks we want (a mark we no longer
// set, such as the archive of a cluster that stopped archiving, is drift).
func marksMatch(cm *informers.CachedConfigMap, want map[string]string) bool {
	for _, k := range connectionMarkKeys {
		if cm.Annotations[k] != want[k] {
			return false
		}
	}
	return true
}

// pluginServerName is the barman-cloud serverName in a CNPG Cluster's
// spec, "" when it does not archive through the plugin.
func pluginServerName(cl *cnpgv1.Cluster) string {
	if pl := barmanPluginOf(cl); pl != nil {
		return pl.Parameters["serverName"]
	}
	return ""
}

// barmanPluginOf is the barman-cloud entry of a CNPG Cluster's plugins
// (CNPG keys the list by name), nil when there is none.
func barmanPluginOf(cl *cnpgv1.Cluster) *cnpgv1.PluginConfiguration {
	for i := range cl.Spec.Plugins {
		if cl.Spec.Plugins[i].Name == barmanPlugin {
			return &cl.Spec.Plugins[i]
		}
	}
	return nil
}
