package cluster

import (
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// cnpgRestartAnnotation is CloudNativePG's declarative restart: a value
// on the Cluster that differs from the one its Pods carry rolls them
// (what `kubectl cnpg restart` sets). setpoint writes it, with its own
// apply, from the PostgresCluster's pgv1.RestartAnnotation: a user who
// may only change setpoint's kinds can restart, and the CNPG Cluster
// keeps one writer of its metadata and spec.
const cnpgRestartAnnotation = "kubectl.kubernetes.io/restartedAt"

// withRestart adds the restart request to the annotations the
// provisioner applies. Without a request the annotation is left out of
// the apply, so server-side apply removes a value setpoint had set; that
// restarts nothing: CloudNativePG compares a Pod's value with the
// Cluster's only while the Cluster carries one.
func withRestart(annotations map[string]string, c *pgv1.PostgresCluster) map[string]string {
	if id := c.Annotations[pgv1.RestartAnnotation]; id != "" {
		annotations[cnpgRestartAnnotation] = id
	}
	return annotations
}

// restartMatches: the CNPG Cluster carries the request, or there is none.
func restartMatches(cur *cnpgv1.Cluster, c *pgv1.PostgresCluster) bool {
	id := c.Annotations[pgv1.RestartAnnotation]
	return id == "" || cur.Annotations[cnpgRestartAnnotation] == id
}
