// Tools module.
