// Declare a database service running or stopped, and delete its reverse private endpoints on destroy.
package dbcloud
