/**
 * Deployment of SIP applications (JSR 289 §16–§19): the application archive ({@link
 * io.sipline.container.deploy.ApplicationArchive}), the {@code sip.xml} reader in its three dialects ({@link
 * io.sipline.container.deploy.SipXmlReader}), servlet mapping rules compiled to predicates ({@link
 * io.sipline.container.deploy.MappingRule}), the class-file annotation scanner ({@link
 * io.sipline.container.deploy.AnnotationScanner}) and the merge of the two into one immutable model ({@link
 * io.sipline.container.deploy.DeploymentDescriptors}). Reading all of that loads no application class; then
 * {@link io.sipline.container.deploy.ApplicationDeployer} gives the application its own class loader ({@link
 * io.sipline.container.deploy.ApplicationClassLoader}: API packages from the container, the rest application-first)
 * and instantiates its servlets and listeners. {@link io.sipline.container.deploy.DeploymentWatcher} deploys what
 * {@code --deploy} names and keeps watched folders in step (WARs dropped, replaced, deleted), handing each
 * application to the {@link io.sipline.container.deploy.DeploymentListener} that dispatch implements.
 */
package io.sipline.container.deploy;
