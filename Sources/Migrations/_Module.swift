// Migrations module.
