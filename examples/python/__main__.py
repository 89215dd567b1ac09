"""Stop at night, run by day: the desired state follows the hour in the configured time zone.

A scheduler runs `pulumi up --yes` every hour (see docs/plugin.md); only a change of the hour's
state sends a start or a stop, and each waits for the service within customTimeouts. The SDK
`pulumi_dbcloud` is the one committed under sdk/python (docs/plugin.md: how to install it); the
real-engine suite runs this program on it under the Pulumi CLI (test/cli/python-sdk.test.ts).
"""

import datetime
import zoneinfo

import pulumi
import pulumi_dbcloud as dbcloud

config = pulumi.Config()
service_id = config.require("serviceId")
zone = zoneinfo.ZoneInfo(config.get("timeZone") or "UTC")


def hour(key: str, default: int) -> int:
    """An hour from the config; 0 (midnight) is an hour like any other, not a missing value."""
    value = config.get_int(key)
    return default if value is None else value


stop_at = hour("stopAtHour", 20)
start_at = hour("startAtHour", 7)

now = datetime.datetime.now(zone).hour
night = now >= stop_at or now < start_at

analytics = dbcloud.ServiceRunState(
    "analytics",
    service_id=service_id,
    state="stopped" if night else "running",
    on_destroy="leave",
    opts=pulumi.ResourceOptions(
        custom_timeouts=pulumi.CustomTimeouts(create="30m", update="30m"),
    ),
)

service = dbcloud.get_service_output(service_id=service_id)

pulumi.export("desired", analytics.state)
pulumi.export("observed", analytics.observed_state)
pulumi.export("lastCommand", analytics.last_command)
pulumi.export("databaseVersion", service.database_version)
