// Tests never read the developer's environment for service settings.
process.env.NODE_ENV = 'test';
