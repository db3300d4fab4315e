// Package v1 declares the subset of the Prometheus Operator's
// monitoring.coreos.com/v1 PodMonitor that setpoint writes or reads: the
// PodMonitor CloudNativePG recommends creating for each Cluster now that
// its own spec.monitoring.enablePodMonitor is deprecated. As for the CNPG
// kinds, only fields we own are declared; write by server-side apply only.
//
// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +groupName=monitoring.coreos.com
// +groupGoName=Monitoring
package v1
