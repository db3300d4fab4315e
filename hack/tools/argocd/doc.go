// Package argocd runs setpoint's Argo CD health scripts
// (manifests/argocd/resource_customizations) the way Argo CD runs a
// resource customization: with gopher-lua, the object as the global obj,
// only the base, table and package libraries open, and a status checked
// against Argo CD's health codes. gopher-lua is pinned here, in the tools
// module, and never enters the operator's build.
package argocd
