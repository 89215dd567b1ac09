//go:build tools

// Package tools pins the Pulumi CLI and its language hosts so that build.sh can build them from
// their Go modules at one version, with go.sum recording exactly what was built.
package tools

import (
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
)
