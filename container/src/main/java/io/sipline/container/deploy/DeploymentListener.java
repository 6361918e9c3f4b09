package io.sipline.container.deploy;

/**
 * Hears what the deployment side (the {@code --deploy} paths and the watched folders) does, so that dispatch can
 * start and stop applications. The seam between {@code deploy} (which finds, reads and loads applications) and the
 * dispatcher (which initialises servlets, routes requests to them, and stops them).
 * <p>
 * Threading: called on the deploying thread (the main thread at start, the folder watcher's thread afterwards),
 * never on a shard. An implementation publishes the new set of applications to the shards without a lock on their
 * side (an immutable snapshot in a volatile field), initialises the application's servlets and listeners before it
 * is published, and on undeploy unpublishes first, then lets the application's sessions end, then destroys it.
 */
public interface DeploymentListener
{
    /**
     * A newly deployed application, or the new version of one with the same name (a redeploy: the old version
     * was passed to {@link #onUndeployed} just before).
     *
     * @throws DeploymentException when the application cannot start (a servlet's {@code init} or a listener threw):
     *                             the deployer then closes it and reports the reason on one line.
     */
    void onDeployed(DeployedApplication application) throws DeploymentException;

    /** The application is going away (its file was deleted or replaced, or the server stops); close it afterwards. */
    void onUndeployed(DeployedApplication application);
}
