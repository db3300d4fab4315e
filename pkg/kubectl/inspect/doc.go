// Package inspect turns setpoint's objects and their children, as the API
// server has them, into what `kubectl setpoint` shows: a cluster's report
// (status), the first unmet condition of a database with its cause and a
// remedy (explain), and connection strings (conn). It reads only; nothing
// here writes to the API server or holds logic the operator has: the
// operator's conditions are taken as the truth and only arranged.
package inspect
