// Package stopatnight declares one database service running or stopped, as the stack's
// desiredState config says, and reads the service's database version.
package stopatnight

import (
	"github.com/pulumi-dbcloud/pulumi-dbcloud/sdk/go/dbcloud"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

// Program is the stack: the service in the desired state, and what the API shows of it.
func Program(ctx *pulumi.Context) error {
	conf := config.New(ctx, "")
	serviceID := conf.Require("serviceId")
	desired := conf.Get("desiredState")
	if desired == "" {
		desired = "running"
	}
	analytics, err := dbcloud.NewServiceRunState(ctx, "analytics", &dbcloud.ServiceRunStateArgs{
		ServiceId: pulumi.String(serviceID),
		State:     pulumi.String(desired),
		OnDestroy: pulumi.String("leave"),
	}, pulumi.Timeouts(&pulumi.CustomTimeouts{Create: "30m", Update: "30m"}))
	if err != nil {
		return err
	}
	service := dbcloud.GetServiceOutput(ctx, dbcloud.GetServiceOutputArgs{ServiceId: pulumi.String(serviceID)})
	ctx.Export("desired", analytics.State)
	ctx.Export("observed", analytics.ObservedState)
	ctx.Export("lastCommand", analytics.LastCommand)
	ctx.Export("databaseVersion", service.DatabaseVersion())
	return nil
}
