// Package cnpgverdict reads CloudNativePG's answer on a Database or
// DatabaseRole setpoint wrote: whether it refused it (CNPGRefused), and
// whether a failed role only lost the race with CNPG's RBAC to its
// password Secret, retried at a pace under an annotation (RetryDue,
// RetryMark).
package cnpgverdict
