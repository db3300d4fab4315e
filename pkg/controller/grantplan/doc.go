// Package grantplan holds the privilege model of one database as setpoint
// keeps it exact: what a PostgresDatabase declares (Declared), what the
// catalog holds (Catalog, read by one query, CatalogQuery), and the
// statements that turn the one into the other (Plan), a pure function.
//
// The rules Plan keeps:
//   - A role setpoint created (the database's rw and ro roles and every
//     role of spec.roles) holds exactly what is declared for it: what is
//     held and not declared is revoked, what is declared and not held is
//     granted. The owner (<db>_admin) holds what it owns and is left alone.
//   - Nothing is granted to or revoked from any other role.
//   - An object owned by a role setpoint did not create is left alone, and
//     named among the plan's Skipped.
//   - A declared schema is created with its owner; a schema owned by a role
//     of setpoint's goes to its declared owner; one owned by anyone else is
//     left alone and skipped. A schema no longer declared is kept.
//
// The statements are in a fixed order (schemas, grants, revokes, default
// privileges), every identifier quoted, so the same inputs give the same
// plan, and a converged database gives none.
package grantplan
