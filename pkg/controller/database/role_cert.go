package database

import (
	"fmt"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// certAuth: database d's roles log in by client certificate.
func certAuth(d pgv1.DatabaseSpec) bool {
	return d.Authentication == pgv1.AuthenticationCertificate
}

// certHealth is where CNPG stands with the client certificate of cur, an
// applied DatabaseRole of a certificate database. The role is no use to
// the application before its certificate exists, so the role waits for
// it. CNPG's operator (not the instance manager) issues it and reports
// status.clientCertificate outside observedGeneration: an expiration once
// the Secret holds a certificate, a message when it cannot issue one
// (a client CA without its key, a same-named Secret not its own).
func certHealth(cur *cnpgv1.DatabaseRole, role string) health {
	secret := naming.ClientCertSecret(cur.Name)
	st := cur.Status.ClientCertificate
	switch {
	case st != nil && st.Message != "":
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonRoleCertificateNotIssued,
			fmt.Sprintf("CloudNativePG cannot issue the client certificate of role %s (DatabaseRole %q, Secret %q): %s", role, cur.Name, secret, st.Message), provisionRecheck)
	case st == nil || st.Expiration == "":
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonRoleCertificatePending,
			fmt.Sprintf("client certificate of role %s not yet issued by CloudNativePG (Secret %q)", role, secret), provisionRecheck)
	}
	return ready("", "")
}

// certWait: h is a wait for a certificate, which CNPG issues only for a
// role its instance manager applied: Postgres has the role.
func certWait(h health) bool {
	return h.Reason == pgv1.ReasonRoleCertificatePending || h.Reason == pgv1.ReasonRoleCertificateNotIssued
}
