<?php

// For a project without Composer: `require __DIR__ . '/path/to/clients/php/autoload.php';` loads
// the client as Composer's autoloader would (PSR-4 `PartnerDelivery\` => src/, and src/functions.php).

declare(strict_types=1);

spl_autoload_register(static function (string $class): void {
    $prefix = 'PartnerDelivery\\';
    if (!str_starts_with($class, $prefix)) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});

require_once __DIR__ . '/src/functions.php';
