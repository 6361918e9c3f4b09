/**
 * Deployment of SIP applications (JSR 289 §16–§19, issue 4 §1): the application archive ({@link
 * io.sipline.container.deploy.ApplicationArchive}), the {@code sip.xml} reader in its three dialects ({@link
 * io.sipline.container.deploy.SipXmlReader}), servlet mapping rules compiled to predicates ({@link
 * io.sipline.container.deploy.MappingRule}), the class-file annotation scanner ({@link
 * io.sipline.container.deploy.AnnotationScanner}) and the merge of the two into one immutable model ({@link
 * io.sipline.container.deploy.DeploymentDescriptors}). Nothing here loads an application class.
 */
package io.sipline.container.deploy;
