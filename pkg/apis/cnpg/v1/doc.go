// Package v1 declares the subset of CloudNativePG's postgresql.cnpg.io/v1
// kinds that setpoint writes or reads: Cluster, Pooler, ScheduledBackup,
// Backup, Database and DatabaseRole. Only the fields we set or read are
// declared, with CNPG's exact JSON names, so that generated apply
// configurations carry exactly the fields setpoint owns. Never Update
// these objects from these types: the fields left out would be wiped.
// Write them by server-side apply.
//
// We declare them instead of importing CNPG's Go API because that module
// pulls in controller-runtime.
//
// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +groupName=postgresql.cnpg.io
// +groupGoName=CNPG
package v1
