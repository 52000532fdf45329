/** Layouts' and templates' types, one a file; each registers the fields that answer it when imported. */
import './layout.ts';
import './layoutTemplate.ts';
import './layoutTemplateVersion.ts';
import './publishLayoutResult.ts';
