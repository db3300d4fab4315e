package v1

import corev1 "k8s.io/api/core/v1"

// BootstrapConfiguration says how a new Cluster gets its data. setpoint
// sets only recovery; without bootstrap CNPG runs initdb.
type BootstrapConfiguration struct {
	Recovery *BootstrapRecovery `json:"recovery,omitempty"`
}

// BootstrapRecovery restores a base backup of the external cluster named
// by source and replays its archived WAL, up to recoveryTarget if set.
type BootstrapRecovery struct {
	Source         string          `json:"source,omitempty"`
	RecoveryTarget *RecoveryTarget `json:"recoveryTarget,omitempty"`
}

// RecoveryTarget is where WAL replay stops (default: the end of the
// archive).
type RecoveryTarget struct {
	// targetTime is RFC 3339 or a PostgreSQL timestamp.
	TargetTime string `json:"targetTime,omitempty"`
}

// ExternalCluster is another cluster's backups, reached through a plugin
// (barman-cloud: parameters barmanObjectName and serverName), and, for a
// replica that streams, its server: libpq connectionParameters and the
// client certificate, key and root CA, each a key of a Secret in the
// Cluster's namespace.
type ExternalCluster struct {
	Name                 string                    `json:"name"`
	PluginConfiguration  *PluginConfiguration      `json:"plugin,omitempty"`
	ConnectionParameters map[string]string         `json:"connectionParameters,omitempty"`
	SSLCert              *corev1.SecretKeySelector `json:"sslCert,omitempty"`
	SSLKey               *corev1.SecretKeySelector `json:"sslKey,omitempty"`
	SSLRootCert          *corev1.SecretKeySelector `json:"sslRootCert,omitempty"`
}
