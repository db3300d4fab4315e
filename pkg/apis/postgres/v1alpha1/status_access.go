package v1alpha1

// The accessors below let code that is generic over setpoint's kinds —
// the one status write of a reconcile pass — read a status and carry a
// new one without naming the type.

// StoredStatus is the status c carries.
func (c *PostgresCluster) StoredStatus() *PostgresClusterStatus { return &c.Status }

// WithStatus is a copy of c carrying st.
func (c *PostgresCluster) WithStatus(st *PostgresClusterStatus) *PostgresCluster {
	out := c.DeepCopy()
	out.Status = *st
	return out
}

// StoredStatus is the status d carries.
func (d *PostgresDatabase) StoredStatus() *PostgresDatabaseStatus { return &d.Status }

// WithStatus is a copy of d carrying st.
func (d *PostgresDatabase) WithStatus(st *PostgresDatabaseStatus) *PostgresDatabase {
	out := d.DeepCopy()
	out.Status = *st
	return out
}
