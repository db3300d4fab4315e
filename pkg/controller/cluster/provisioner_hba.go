package cluster

import "slices"

// hbaLines are the CNPG Cluster's pg_hba lines: setpoint's fixed lines for
// certificate authentication (CertAuthHBA) first, then the
// class's and the cluster's pgHBA. First, because Postgres uses the first
// line that matches: a user's `host all all 10.0.0.0/8 scram-sha-256`
// would otherwise ask a certificate role for the password it must not
// use. They match members of naming.CertAuthGroup only, so the
// user's lines still decide for every other role.
func hbaLines(w *desired) []string {
	return slices.Concat(CertAuthHBA, w.Settings.PgHBA)
}
