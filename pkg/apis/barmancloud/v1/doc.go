// Package v1 declares the subset of the barman-cloud plugin's
// barmancloud.cnpg.io/v1 ObjectStore that setpoint writes or reads. As for
// the CNPG kinds, only fields we own are declared; write by server-side
// apply only.
//
// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +groupName=barmancloud.cnpg.io
// +groupGoName=BarmanCloud
package v1
