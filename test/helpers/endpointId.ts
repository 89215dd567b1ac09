/** The id ReversePrivateEndpointDeletion's create gives: `organization/service/endpoint`. */
export function endpointIdOf(props: Record<string, unknown>): string {
  return `${String(props.organizationId)}/${String(props.serviceId)}/${String(props.reversePrivateEndpointId)}`;
}
