// Stop at night, run by day, from Go: a scheduler runs, in the evening and in the morning,
//
//	pulumi config set desiredState stopped && pulumi up --yes   # evening
//	pulumi config set desiredState running && pulumi up --yes   # morning
//
// The program's body is in package stopatnight, so that the real-engine suite runs the same code
// inline (test/cli/go-driver).
package main

import (
	"dbcloud-stop-at-night-go/stopatnight"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(stopatnight.Program)
}
