// Package roleprivilege holds what a DatabaseRole of setpoint's may say
// about privilege, and how a hand edit of it is taken back.
//
// A role setpoint made (a database's _admin, _rw and _ro, the cluster's
// monitor and certificate group) has no attribute that bears privilege
// beyond login and the memberships it needs. Another field manager with
// edit rights in the namespace could add one to the DatabaseRole
// (superuser: true, inRoles: [pg_execute_server_program]) and CNPG would
// carry it into Postgres. So every such field is setpoint's: set
// explicitly by its server-side apply (Unprivileged), checked on every
// pass (Drift), and what an apply cannot remove is removed by a guarded
// JSON patch (Scrub).
package roleprivilege
