package v1alpha1

// RotateClientCAAnnotation on a PostgresCluster asks for a new client CA:
// the one that signs every client certificate Postgres accepts is
// replaced by the move a renewal makes (Postgres trusts the new CA
// before it signs; the old one is refused once every certificate is
// re-issued and the grace has passed), with no certificate login
// failing. Its value is any request id; a new value is a new request,
// carried out exactly once — the client CA Secret records the request it
// answered. For a CA key that may have leaked.
const RotateClientCAAnnotation = "postgres.setpoint.dev/rotate-client-ca"

// ClientCARotatedForAnnotation, on the client CA Secret, is the rotation
// request the CA in it answered.
const ClientCARotatedForAnnotation = "postgres.setpoint.dev/client-ca-rotated-for"
